import { notifications } from "@teamchat/shared";
import { expectZulipError } from "../../../test/support/call";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { catalogueEvents, registerQueue, setting, whenPolling } from "./helpers";

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
/** A poll that is at notifications (see whenPolling) when this resolves. */
const parkedPoll = (queueId: string, last: number) => whenPolling(sys.nc, queueId, () => poll(queueId, last));

/**
 * Queued events live in a JetStream stream, so they outlive an instance. Domain events
 * published while no instance at all is up are queued by no one: core NATS
 * keeps nothing for absent subscribers (a known limit of fire-and-forget
 * publishing; run two instances to restart one at a time).
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
