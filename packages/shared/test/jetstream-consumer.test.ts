/**
 * The durable consumer loop on a real nats-server: a malformed item (not the
 * schema's, or not JSON) is dropped and a failed one delivered again after
 * the back-off, each counted by outcome; and a stop hands an item it did not
 * finish to another instance at once, well before the consumer's ack wait.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { AckPolicy, RetentionPolicy, StorageType, jetstream, jetstreamManager } from "@nats-io/jetstream";
import pino from "pino";
import { Counter, Registry } from "prom-client";
import { z } from "zod";
import { consumeDurableLoop, type SubjectHandler } from "../src/jetstream-consumer";
import { startTestNats } from "../../../test/support/nats";

const STREAM = "LOOP_TEST";
const CONSUMER = "loop-test";
const SUBJECT = "loop.item";
const ACK_WAIT_SECONDS = 30;
const log = pino({ level: "silent" });

let nats: Awaited<ReturnType<typeof startTestNats>>;
let nc: NatsConnection;
let outcomes: Counter<"consumer" | "outcome">;
beforeEach(async () => {
  nats = await startTestNats();
  nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({
    name: STREAM,
    subjects: ["loop.>"],
    storage: StorageType.File,
    retention: RetentionPolicy.Workqueue,
  });
  await jsm.consumers.add(STREAM, {
    durable_name: CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: ACK_WAIT_SECONDS * 1e9,
  });
  outcomes = new Counter({
    name: "loop_items_total",
    help: "items",
    labelNames: ["consumer", "outcome"],
    registers: [new Registry()],
  });
});
afterEach(async () => {
  await nc.close();
  await nats.stop();
});

const start = (handle: SubjectHandler["handle"]) =>
  consumeDurableLoop(nc, {
    stream: STREAM,
    consumer: CONSUMER,
    handlers: new Map([[SUBJECT, { schema: z.object({ n: z.number() }), handle }]]),
    pullBatch: 16,
    metrics: { outcomes, labels: { consumer: CONSUMER } },
    log,
  });

const counted = async () => Object.fromEntries((await outcomes.get()).values.map((v) => [v.labels.outcome, v.value]));

it("drops malformed items, and delivers a failed one again after a second", async () => {
  const tries: Array<{ n: number; at: number }> = [];
  let handled!: () => void;
  const done = new Promise<void>((resolve) => (handled = resolve));
  const loop = await start(async (item) => {
    tries.push({ n: (item as { n: number }).n, at: Date.now() });
    if (tries.length === 1) throw new Error("the first try fails");
    handled();
  });
  await jetstream(nc).publish(SUBJECT, JSON.stringify({ n: "not a number" }));
  await jetstream(nc).publish(SUBJECT, "not JSON");
  await jetstream(nc).publish(SUBJECT, JSON.stringify({ n: 7 }));
  await done;
  await loop.stop();

  expect(tries.map((t) => t.n)).toEqual([7, 7]);
  expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(900);
  expect(await counted()).toEqual({ dropped: 2, retry: 1, ok: 1 });
  const info = await (await jetstreamManager(nc)).streams.info(STREAM);
  expect(info.state.messages).toBe(0);
});

it("hands an item it could not finish back on stop, so another instance takes it at once", async () => {
  let taken!: (streamSequence: number) => void;
  const takenByFirst = new Promise<number>((resolve) => (taken = resolve));
  const first = await start((_item, m) => {
    taken(m.info.streamSequence);
    return new Promise<void>(() => undefined);
  });
  await jetstream(nc).publish(SUBJECT, JSON.stringify({ n: 1 }));
  const item = await takenByFirst;
  await first.stop();
  const stoppedAt = Date.now();

  let takenAgain!: (streamSequence: number) => void;
  const takenBySecond = new Promise<number>((resolve) => (takenAgain = resolve));
  const second = await start(async (_item, m) => takenAgain(m.info.streamSequence));
  expect(await takenBySecond).toBe(item);
  // not after the ack wait
  expect(Date.now() - stoppedAt).toBeLessThan(5_000);
  await second.stop();
  expect(await counted()).toEqual({ ok: 1 });
});
