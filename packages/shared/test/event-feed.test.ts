/**
 * EventFeed on a real nats-server: an instance whose connection drops (cut by
 * a TCP proxy in front of the server, while the publisher goes on) replays
 * the events it missed from the domain events' stream, in order, each once,
 * without losing what its caches hold; caches read
 * the database until the replay ends; when the stream no longer holds the
 * missed events the caches forget everything; and a second copy of an event
 * (a publish tried again) is not applied again. EventCache.getMany answers
 * many ids with one load for those not held, and a failure of that load that
 * no caller awaits does not end the process.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { PubHeaders, jetstreamManager } from "@nats-io/jetstream";
import { connect, headers, type NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import { z } from "zod";
import {
  DOMAIN_EVENTS_STREAM,
  EventCache,
  EventFeed,
  EventPublisher,
  defineEvent,
  ensureDomainEventStream,
  subscribeEvent,
} from "@teamchat/shared";
import { startTestNats } from "../../../test/support/nats";
import { CuttableProxy } from "../../../test/support/cuttable-proxy";

jest.setTimeout(60_000);

const counted = defineEvent("messaging", "feed_test_counted", z.object({ n: z.number().int() }));
const log = pino({ level: "silent" });

let nats: Awaited<ReturnType<typeof startTestNats>>;
let proxy: CuttableProxy;
let publisherNc: NatsConnection;
let publisher: EventPublisher<"messaging">;
let subscriberNc: NatsConnection;
let feed: EventFeed;
beforeEach(async () => {
  nats = await startTestNats();
  publisherNc = await connect({ servers: nats.url });
  await ensureDomainEventStream(publisherNc, { maxAgeSeconds: 3600, maxBytes: 16 * 1024 * 1024, replicas: 1 });
  publisher = new EventPublisher(publisherNc, "messaging");
  proxy = new CuttableProxy(new URL(nats.url));
  subscriberNc = await connect({ servers: await proxy.listen(), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  feed = EventFeed.of(subscriberNc);
});
afterEach(async () => {
  await subscriberNc.close();
  await publisherNc.close();
  proxy.close();
  await nats.stop();
});

const until = async (what: string, check: () => boolean, ms = 15_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

/** A cache of the numbers heard, kept by the events as a cache of any service is. */
async function heardNumbers(): Promise<{ heard: number[]; cache: EventCache<number[]> }> {
  const heard: number[] = [];
  const cache = new EventCache<number[]>(subscriberNc, { name: "feed_test", maxWeight: 10, weigh: () => 1 });
  subscribeEvent(
    subscriberNc,
    counted,
    ({ n }) => {
      heard.push(n);
      cache.update("numbers", (v) => {
        if (!v.includes(n)) v.push(n);
      });
    },
    { log },
  );
  await subscriberNc.flush();
  return { heard, cache };
}

it("replays the events missed while disconnected, in order, and keeps what the caches hold", async () => {
  const { heard, cache } = await heardNumbers();
  expect(await cache.get("numbers", async () => [])).toEqual([]);
  // a steady publisher through the whole disconnection, the replay and after: ~2,000 events/s, pipelined on one
  // connection (so stored in the order of n), so that some are heard live while the replay reads the same ones
  let n = 0;
  let publishing = true;
  const published = (async () => {
    while (publishing) {
      for (let i = 0; i < 10; i++) {
        publisherNc.publish(counted.subject, JSON.stringify({ n: ++n }), { headers: withMsgId(randomUUID()) });
      }
      await sleep(5);
    }
    await publisherNc.flush();
  })();
  await until("events heard live", () => heard.length >= 20);

  proxy.cut();
  await until("the disconnection", () => !feed.current);
  const missedFrom = n + 1;
  await until("events published while disconnected", () => n >= missedFrom + 500);
  expect(heard.includes(missedFrom)).toBe(false);
  // meanwhile the cache reads the database (here: its loader) and keeps nothing
  expect(await cache.get("numbers", async () => [-1])).toEqual([-1]);
  expect(cache.held("numbers")).toBeUndefined();

  // the replay starts by asking for the stream's info: events stored meanwhile are heard live and replayed both
  proxy.holdBack(`$JS.API.STREAM.INFO.${DOMAIN_EVENTS_STREAM}`, 300);
  proxy.resume();
  await until("the replay", () => feed.current);
  const afterReplay = n;
  await until("events heard live after the replay", () => heard.includes(afterReplay + 500));
  publishing = false;
  await published;
  await until("the last event", () => heard.includes(n));

  // the replay starts a little before the disconnection, but what was heard then is not applied again
  expect(heard).toEqual(range(1, n));
  // the value held before the disconnection is still held, with every event applied
  expect(cache.held("numbers")?.value).toEqual(range(1, n));
  expect(await cache.get("numbers", () => Promise.reject(new Error("not kept")))).toEqual(range(1, n));
});

it("forgets what the caches hold when the stream no longer has the events missed", async () => {
  const { heard, cache } = await heardNumbers();
  expect(await cache.get("numbers", async () => [])).toEqual([]);
  await publisher.publishAndWait(counted, { n: 1 });
  await until("the event heard live", () => heard.includes(1));

  proxy.cut();
  await until("the disconnection", () => !feed.current);
  await publisher.publishAndWait(counted, { n: 2 });
  await (await jetstreamManager(publisherNc)).streams.purge(DOMAIN_EVENTS_STREAM);
  proxy.resume();
  await until("the end of the replay", () => feed.current);

  expect(heard).toEqual([1]);
  expect(cache.held("numbers")).toBeUndefined();
  expect(await cache.get("numbers", async () => [1, 2])).toEqual([1, 2]);
});

it("applies each event once, to every handler of its subject, however many copies arrive", async () => {
  const first: number[] = [];
  const second: number[] = [];
  subscribeEvent(subscriberNc, counted, ({ n }) => first.push(n), { log });
  const stopped = subscribeEvent(subscriberNc, counted, ({ n }) => second.push(n), { log });
  await subscriberNc.flush();
  // a publisher that tried again sends the same event (message id) a second time
  const id = randomUUID();
  for (const n of [1, 1, 2]) {
    publisherNc.publish(counted.subject, JSON.stringify({ n }), { headers: withMsgId(n === 1 ? id : randomUUID()) });
  }
  await until("both events", () => first.length >= 2 && second.length >= 2);
  stopped.unsubscribe();
  await publisher.publishAndWait(counted, { n: 3 });
  await until("the third event", () => first.includes(3));
  expect(first).toEqual([1, 2, 3]);
  expect(second).toEqual([1, 2]);
});

const withMsgId = (id: string) => {
  const h = headers();
  h.set(PubHeaders.MsgIdHdr, id);
  return h;
};

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

it("answers many ids in their order, loading together only those not held", async () => {
  const cache = new EventCache<string>(subscriberNc, { name: "feed_test_many", maxWeight: 10, weigh: () => 1 });
  const loads: number[][] = [];
  const load = (missing: number[]): Promise<Map<number, string>> => {
    loads.push(missing);
    return Promise.resolve(new Map(missing.filter((id) => id !== 3).map((id) => [id, `v${id}`])));
  };
  expect(await cache.getMany([1, 2, 3], String, load, () => "none")).toEqual(["v1", "v2", "none"]);
  expect(await cache.getMany([3, 2, 4, 1], String, load, () => "none")).toEqual(["none", "v2", "v4", "v1"]);
  expect(loads).toEqual([[1, 2, 3], [4]]);
});

it("takes a failed load that no caller awaits as handled, when loads under way serve every id", async () => {
  const cache = new EventCache<string>(subscriberNc, { name: "feed_test_many", maxWeight: 10, weigh: () => 1 });
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    let finish!: (v: string) => void;
    const underWay = cache.get("5", () => new Promise<string>((resolve) => (finish = resolve)));
    const many = cache.getMany(
      [5],
      String,
      () => Promise.reject(new Error("database down")),
      () => "none",
    );
    finish("v5");
    expect(await many).toEqual(["v5"]);
    await underWay;
    await sleep(100);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  expect(unhandled).toEqual([]);
});
