/**
 * The outbox on a real nats-server and database: an event the domain events'
 * stream does not take (here: the stream does not exist yet, as while its
 * nodes elect a leader) is held in the publisher's database and the publish
 * resolves; later events are held behind it; once the stream takes events the
 * relay stores them in order, each once, with their message ids, and
 * publishing goes straight to the stream again. Events an instance left behind
 * (it died holding them) are relayed by the next publisher that starts.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import { z } from "zod";
import { DOMAIN_EVENTS_STREAM, EventPublisher, defineEvent, ensureDomainEventStream } from "@teamchat/shared";
import { connectDatabase, type Connection } from "../src/db";
import { startTestNats } from "../../../test/support/nats";

jest.setTimeout(60_000);

const counted = defineEvent("messaging", "outbox_test_counted", z.object({ realmId: z.number(), n: z.number() }));
/** The publishers' log lines: the relay says when its backlog ends, and only then do publishes go straight to the stream. */
const logged: string[] = [];
const log = pino({ level: "info" }, { write: (line: string) => void logged.push(line) });

let nats: Awaited<ReturnType<typeof startTestNats>>;
let nc: NatsConnection;
let jsm: JetStreamManager;
let db: Connection;
const publishers: EventPublisher<"messaging">[] = [];
beforeEach(async () => {
  logged.length = 0;
  nats = await startTestNats();
  nc = await connect({ servers: nats.url });
  jsm = await jetstreamManager(nc);
  db = await connectDatabase(process.env.TEST_MONGO_URL!, `outbox${randomBytes(4).toString("hex")}`);
});
afterEach(async () => {
  await Promise.all(publishers.splice(0).map((p) => p.stop()));
  await db.dropDatabase();
  await db.close();
  await nc.close();
  await nats.stop();
});

const publisher = () => {
  const p = new EventPublisher(nc, "messaging", true, log, db);
  publishers.push(p);
  return p;
};
const openStream = () => ensureDomainEventStream(nc, { maxAgeSeconds: 3600, maxBytes: 1024 * 1024, replicas: 1 });
const held = () => db.collection("event_outbox").find().sort({ at: 1, n: 1 }).toArray();

/** The stream's events, in order: payload and message id. */
async function stored(): Promise<Array<{ n: number; msgID: string | undefined }>> {
  const { state } = await jsm.streams.info(DOMAIN_EVENTS_STREAM);
  const events = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(DOMAIN_EVENTS_STREAM, { seq });
    events.push({ n: m!.json<{ n: number }>().n, msgID: m!.header.get("Nats-Msg-Id") || undefined });
  }
  return events;
}

const until = async (what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
};

it("holds events the stream does not take, then stores them in order, each once, and publishes directly again", async () => {
  const events = publisher();
  const t0 = Date.now();
  await events.publishAndWait(counted, { realmId: 1, n: 1 }, "req-1", "event-1");
  // held after its attempts (1.5 s), not failed after 5 s
  expect(Date.now() - t0).toBeLessThan(4_000);
  const t1 = Date.now();
  await events.publishAndWait(counted, { realmId: 1, n: 2 }, "req-2", "event-2");
  expect(Date.now() - t1).toBeLessThan(1_000); // behind the first, at once
  expect((await held()).map((e) => [e._id, e.subject, JSON.parse(e.data as string), e.requestId])).toEqual([
    ["event-1", counted.subject, { realmId: 1, n: 1 }, "req-1"],
    ["event-2", counted.subject, { realmId: 1, n: 2 }, "req-2"],
  ]);

  await openStream();
  await until("the relay", async () => logged.some((line) => line.includes("the stream took every held event")));
  expect(await held()).toEqual([]);
  expect(await stored()).toEqual([
    { n: 1, msgID: "event-1" },
    { n: 2, msgID: "event-2" },
  ]);

  // no backlog: straight to the stream, and a copy of a relayed event is not stored again
  await events.publishAndWait(counted, { realmId: 1, n: 3 }, "req-3", "event-3");
  await events.publishAndWait(counted, { realmId: 1, n: 1 }, "req-1", "event-1");
  expect(await held()).toEqual([]);
  expect((await stored()).map((e) => e.n)).toEqual([1, 2, 3]);
});

it("relays the events an instance left behind when the next publisher starts", async () => {
  await openStream();
  const msgID = randomUUID();
  await db.collection("event_outbox").insertOne({
    _id: msgID as never,
    subject: counted.subject,
    data: JSON.stringify({ realmId: 1, n: 7 }),
    requestId: null,
    at: new Date(),
    n: 0,
  });
  publisher();
  await until("the relay", async () => (await held()).length === 0);
  expect(await stored()).toEqual([{ n: 7, msgID }]);
});
