import { messaging, notifications } from "@teamchat/shared";
import { expectZulipError } from "../../../test/support/call";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { QUEUE_EVENT_TYPES, catalogueEvents, registerQueue, setting } from "./helpers";
import { whenPolling } from "../../../test/support/events";

const HEARTBEAT_SECONDS = 20;
let sys: TestSystem;
let publish: ReturnType<typeof catalogueEvents>;
beforeAll(async () => {
  sys = await startSystem({
    env: { EVENT_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS), RATE_LIMIT_REQUESTS: "10000" },
  });
  publish = catalogueEvents(sys);
});
afterAll(() => sys?.stop());

const poll = (queue_id: string, last_event_id: number, dont_block = false) =>
  sys.call(notifications.getEvents, { queue_id, last_event_id, dont_block }, sys.owner);
/** Polls until `count` events have come (none is a heartbeat: the queue is fresh). */
async function drainUntil(queueId: string, count: number) {
  const events: Array<{ id: number; type: string }> = [];
  while (events.length < count) events.push(...(await poll(queueId, events.at(-1)?.id ?? -1)).events);
  return events;
}
/** A poll that is at notifications (see whenPolling) when this resolves. */
const parkedPoll = (queueId: string, last: number) => whenPolling(sys.nc, queueId, () => poll(queueId, last));

/**
 * Queued events live in a JetStream stream, so they outlive an instance; domain
 * events wait in theirs until an instance has put them into the queues.
 */
describe("restart of the only notifications instance", () => {
  it("answers the parked poll at once, keeps queued events, and the client continues without a gap", async () => {
    const polled = await registerQueue(sys, sys.owner);
    const untouched = await registerQueue(sys, sys.owner);
    publish.setting([sys.owner.userId], "kept");
    // a poll answers as soon as the event is there (the stop below finishes the append to the other queue)
    const [kept] = (await poll(polled, -1)).events;
    expect(kept).toEqual({ ...setting("kept"), id: expect.any(Number) });

    const started = Date.now();
    const parked = await parkedPoll(polled, kept!.id);
    await sys.stopService("notifications");
    // the draining instance answers with a heartbeat instead of holding the client until shutdown
    const [heartbeat] = (await parked.reply).events;
    expect(heartbeat).toEqual({ type: "heartbeat", id: expect.any(Number) });
    expect(heartbeat!.id).toBeGreaterThan(kept!.id);
    expect(Date.now() - started).toBeLessThan(5_000);

    await expectZulipError(poll(polled, heartbeat!.id, true), {
      status: 503,
      code: "SERVICE_UNAVAILABLE",
      msg: "Service unavailable: notifications",
    });

    await sys.startService("notifications");
    // a queue never polled still holds its event; the polled one keeps its unacknowledged heartbeat
    expect((await poll(untouched, -1, true)).events).toEqual([{ ...setting("kept"), id: expect.any(Number) }]);
    expect((await poll(polled, kept!.id, true)).events).toEqual([heartbeat]);
    const next = await parkedPoll(polled, heartbeat!.id);
    publish.setting([sys.owner.userId], "after restart");
    const [after] = (await next.reply).events;
    expect(after).toEqual({ ...setting("after restart"), id: expect.any(Number) });
    expect(after!.id).toBeGreaterThan(heartbeat!.id);
  }, 60_000);
});

describe("no notifications instance running", () => {
  it("domain events published meanwhile reach the queues, each once, when one starts", async () => {
    const queueId = await registerQueue(sys, sys.owner, { event_types: ["message", ...QUEUE_EVENT_TYPES] });
    await sys.stopService("notifications");
    publish.setting([sys.owner.userId], "while down 1");
    const { id } = await sys.call(
      messaging.sendMessage,
      { type: "private", to: [sys.owner.userId], content: "sent while notifications was down" },
      sys.owner,
    );
    publish.setting([sys.owner.userId], "while down 2");

    await sys.startService("notifications");
    const waited = await drainUntil(queueId, 3);
    expect(waited.map(({ id: _, ...e }) => e)).toEqual([
      setting("while down 1"),
      {
        type: "message",
        message: expect.objectContaining({ id, content: "sent while notifications was down" }),
        flags: ["read"],
      },
      setting("while down 2"),
    ]);
    // nothing arrives twice
    expect((await poll(queueId, waited.at(-1)!.id, true)).events).toEqual([]);
  }, 60_000);
});

describe("the instance holding a poll dies", () => {
  it("the client's same poll goes on at another instance and gets each event once, in order", async () => {
    // one instance runs (the tests above leave one): the poll parks there; a second starts, the first is killed
    const queueId = await registerQueue(sys, sys.owner);
    publish.setting([sys.owner.userId], "before");
    const [before] = (await poll(queueId, -1)).events;
    const parked = await parkedPoll(queueId, before!.id);
    await sys.startService("notifications");
    await sys.killService("notifications");
    publish.setting([sys.owner.userId], "after the kill");
    // answered by the live instance (the gateway asks again when the dead one falls silent), nothing lost
    const { events } = await parked.reply;
    expect(events.map(({ id: _, ...e }) => e)).toEqual([setting("after the kill")]);
    expect(events[0]!.id).toBeGreaterThan(before!.id);
    // nothing twice
    expect((await poll(queueId, events[0]!.id, true)).events).toEqual([]);
  }, 60_000);
});

describe("two instances", () => {
  it("a poll parked on one instance is woken by an event the other appended", async () => {
    await sys.startService("notifications");
    const queueId = await registerQueue(sys, sys.owner);
    // Requests and domain events are spread at random over the two instances:
    // over 8 rounds, the poll and the append land on different instances in
    // some round with probability 1 - 2^-8, and every round must wake at once.
    let last = -1;
    for (let round = 0; round < 8; round++) {
      const started = Date.now();
      const parked = await parkedPoll(queueId, last);
      publish.setting([sys.owner.userId], `round ${round}`);
      const { events } = await parked.reply;
      expect(events).toEqual([{ ...setting(`round ${round}`), id: expect.any(Number) }]);
      expect(events[0]!.id).toBeGreaterThan(last);
      expect(Date.now() - started).toBeLessThan(5_000);
      last = events[0]!.id;
    }
  }, 60_000);
});
