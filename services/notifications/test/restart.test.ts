import { ok } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { alertWords, publish, registerQueue } from "./helpers";

const HEARTBEAT_SECONDS = 20;
let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem({
    env: { EVENT_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS), RATE_LIMIT_REQUESTS: "10000" },
  });
});
afterAll(() => sys?.stop());

const owner = () => sys.api(sys.owner);
const poll = (queue_id: string, last_event_id: number, dont_block = false) =>
  owner().get("/events", { queue_id, last_event_id, dont_block });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Queued events live in MongoDB, so they outlive an instance. Domain events
 * published while no instance at all is up are queued by no one: core NATS
 * keeps nothing for absent subscribers (a known limit of fire-and-forget
 * publishing; run two instances to restart one at a time).
 */
describe("restart of the only notifications instance", () => {
  it("answers the parked poll at once, keeps queued events, and the client continues without a gap", async () => {
    const polled = await registerQueue(owner());
    const untouched = await registerQueue(owner());
    publish(sys, [sys.owner.userId], alertWords("kept"));
    await sleep(300);
    expect(ok(await poll(polled, -1, true)).events).toEqual([{ type: "alert_words", alert_words: ["kept"], id: 0 }]);

    const started = Date.now();
    const parked = poll(polled, 0);
    await sleep(300);
    await sys.stopService("notifications");
    // the draining instance answers with a heartbeat instead of holding the client until shutdown
    expect(ok(await parked).events).toEqual([{ type: "heartbeat", id: 1 }]);
    expect(Date.now() - started).toBeLessThan(5_000);

    const down = await poll(polled, 1, true);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      result: "error",
      code: "SERVICE_UNAVAILABLE",
      msg: "Service unavailable: notifications",
    });

    await sys.startService("notifications");
    // a queue never polled still holds its event; the polled one keeps its unacknowledged heartbeat
    expect(ok(await poll(untouched, -1, true)).events).toEqual([{ type: "alert_words", alert_words: ["kept"], id: 0 }]);
    expect(ok(await poll(polled, 0, true)).events).toEqual([{ type: "heartbeat", id: 1 }]);
    const next = poll(polled, 1);
    await sleep(300);
    publish(sys, [sys.owner.userId], alertWords("after restart"));
    expect(ok(await next).events).toEqual([{ type: "alert_words", alert_words: ["after restart"], id: 2 }]);
  }, 60_000);
});

describe("two instances", () => {
  it("a poll parked on one instance is woken by an event the other appended", async () => {
    await sys.startService("notifications");
    const queueId = await registerQueue(owner());
    // Requests and domain events are spread at random over the two instances:
    // over 8 rounds, the poll and the append land on different instances in
    // some round with probability 1 - 2^-8, and every round must wake at once.
    let last = -1;
    for (let round = 0; round < 8; round++) {
      const started = Date.now();
      const parked = poll(queueId, last);
      await sleep(200);
      publish(sys, [sys.owner.userId], alertWords(`round ${round}`));
      const { events } = ok(await parked);
      expect(events).toEqual([{ type: "alert_words", alert_words: [`round ${round}`], id: last + 1 }]);
      expect(Date.now() - started).toBeLessThan(5_000);
      last += 1;
    }
  }, 60_000);
});
