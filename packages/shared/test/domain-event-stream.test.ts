/**
 * The domain event stream on a real nats-server: an event stored while a
 * durable consumer is missing (as while NATS recovers after a restart and has
 * loaded the stream but not yet its consumers) still reaches that consumer,
 * and a stream an earlier version made with interest retention is replaced
 * only when nothing in it is unconsumed.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { AckPolicy, RetentionPolicy, StorageType, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { DOMAIN_EVENTS_STREAM, DURABLE_CONSUMERS, ensureDomainEventStream } from "../src/events/stream";
import { startTestNats } from "../../../test/support/nats";

const limits = { maxAgeSeconds: 3600, maxBytes: 1024 * 1024, replicas: 1 };
let nats: Awaited<ReturnType<typeof startTestNats>>;
let nc: NatsConnection;
beforeEach(async () => {
  nats = await startTestNats();
  nc = await connect({ servers: nats.url });
});
afterEach(async () => {
  await nc.close();
  await nats.stop();
});

it("keeps an event published while the consumer is missing, for the consumer once it is back", async () => {
  await ensureDomainEventStream(nc, limits);
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.delete(DOMAIN_EVENTS_STREAM, DURABLE_CONSUMERS.fanout.name);
  const ack = await jetstream(nc).publish("events.test.happened", "while no consumer was loaded");
  await ensureDomainEventStream(nc, limits);

  const consumer = await jetstream(nc).consumers.get(DOMAIN_EVENTS_STREAM, DURABLE_CONSUMERS.fanout.name);
  const m = await consumer.next({ expires: 2000 });
  expect(m?.seq).toBe(ack.seq);
  expect(m?.string()).toBe("while no consumer was loaded");
});

it("replaces an empty interest-retention stream of an earlier version, and refuses one with unconsumed events", async () => {
  const jsm = await jetstreamManager(nc);
  const interest = { subjects: ["events.>"], storage: StorageType.File, retention: RetentionPolicy.Interest };
  await jsm.streams.add({ name: DOMAIN_EVENTS_STREAM, ...interest });
  await ensureDomainEventStream(nc, limits);
  expect((await jsm.streams.info(DOMAIN_EVENTS_STREAM)).config.retention).toBe(RetentionPolicy.Limits);

  await jsm.streams.delete(DOMAIN_EVENTS_STREAM);
  await jsm.streams.add({ name: DOMAIN_EVENTS_STREAM, ...interest });
  await jsm.consumers.add(DOMAIN_EVENTS_STREAM, { durable_name: "old", ack_policy: AckPolicy.Explicit });
  await jetstream(nc).publish("events.test.happened", "not consumed yet");
  await expect(ensureDomainEventStream(nc, limits)).rejects.toThrow(
    "the DOMAIN_EVENTS stream (interest retention, made by an earlier version) holds 1 unconsumed events: run the earlier version until its consumers have taken them, then start this one",
  );
  const kept = await jsm.streams.info(DOMAIN_EVENTS_STREAM);
  expect([kept.config.retention, kept.state.messages]).toEqual([RetentionPolicy.Interest, 1]);
});
