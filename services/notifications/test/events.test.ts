import { ok } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { makeUser, type TestUser } from "../../../test/support/users";
import { alertWords, publish, registerQueue } from "./helpers";

const HEARTBEAT_SECONDS = 3;
let sys: TestSystem;
let other: TestUser;
beforeAll(async () => {
  sys = await startSystem({
    env: {
      EVENT_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
      EVENT_QUEUE_IDLE_SECONDS: "4",
      RATE_LIMIT_REQUESTS: "10000",
    },
  });
  other = await makeUser(sys, "other");
});
afterAll(() => sys?.stop());

const owner = () => sys.api(sys.owner);
const poll = (queue_id: string, last_event_id: number, dont_block = false) =>
  owner().get("/events", { queue_id, last_event_id, dont_block });
/** dont_block polls until something arrives (events are appended asynchronously after the publish) */
async function eventsAfter(queue_id: string, last: number, count = 1) {
  for (let i = 0; i < 100; i++) {
    const { events } = ok(await poll(queue_id, last, true));
    if (events.length >= count) return events as Array<Record<string, unknown>>;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("events did not arrive");
}
const badQueue = (id: string) => ({
  result: "error",
  code: "BAD_EVENT_QUEUE_ID",
  msg: `Bad event queue ID: ${id}`,
  queue_id: id,
});

describe("POST /register", () => {
  it("creates a queue: queue_id (uuid), last_event_id -1, version fields; an empty dont_block poll", async () => {
    const body = ok(await owner().post("/register", { event_types: ["alert_words"] }));
    expect(body.queue_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(body.last_event_id).toBe(-1);
    expect(typeof body.zulip_version).toBe("string");
    expect(body.zulip_feature_level).toBeGreaterThanOrEqual(417);
    expect(ok(await poll(body.queue_id, -1, true))).toEqual({
      result: "success",
      msg: "",
      events: [],
      queue_id: body.queue_id,
    });
  });

  it("accepts event_types=null as zulip-js sends it (every type), multipart too", async () => {
    const res = await owner().post("/register", { event_types: null, apply_markdown: true }, "multipart");
    const queueId = ok(res).queue_id as string;
    publish(sys, [sys.owner.userId], { type: "muted_users", muted_users: [] });
    expect(await eventsAfter(queueId, -1)).toEqual([{ type: "muted_users", muted_users: [], id: 0 }]);
  });

  it("rejects malformed parameters with Zulip's messages", async () => {
    const bad = await owner().post("/register", { event_types: "alert_words" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "BAD_REQUEST", msg: "event_types is not valid JSON" });
    const notList = await owner().post("/register", { event_types: { a: 1 } });
    expect(notList.body).toMatchObject({ code: "BAD_REQUEST", msg: "event_types is not a list" });
    const negative = await owner().post("/register", { queue_lifespan_secs: -1 });
    expect(negative.body).toMatchObject({ code: "BAD_REQUEST", msg: "queue_lifespan_secs is too small" });
  });
});

describe("GET /events", () => {
  it("delivers events to the listed users' queues only, with increasing ids and per-user fields", async () => {
    const mine = await registerQueue(owner());
    const theirs = await registerQueue(sys.api(other));
    publish(sys, [sys.owner.userId], alertWords("one"));
    publish(sys, "all", alertWords("two"), { [other.userId]: { alert_words: ["two-for-other"] } });
    expect(await eventsAfter(mine, -1, 2)).toEqual([
      { type: "alert_words", alert_words: ["one"], id: 0 },
      { type: "alert_words", alert_words: ["two"], id: 1 },
    ]);
    const otherEvents = ok(
      await sys.api(other).get("/events", { queue_id: theirs, last_event_id: -1, dont_block: true }),
    );
    expect(otherEvents.events).toEqual([{ type: "alert_words", alert_words: ["two-for-other"], id: 0 }]);
  });

  it("event_types filters what is queued", async () => {
    const queueId = await registerQueue(owner(), { event_types: ["muted_users"] });
    publish(sys, [sys.owner.userId], alertWords("filtered out"));
    publish(sys, [sys.owner.userId], { type: "muted_users", muted_users: [{ id: 5, timestamp: 1 }] });
    expect(await eventsAfter(queueId, -1)).toEqual([
      { type: "muted_users", muted_users: [{ id: 5, timestamp: 1 }], id: 0 },
    ]);
  });

  it("last_event_id acknowledges: acknowledged events are gone, older ids are refused, unknown ids too", async () => {
    const queueId = await registerQueue(owner());
    for (const w of ["a", "b", "c"]) publish(sys, [sys.owner.userId], alertWords(w));
    expect((await eventsAfter(queueId, -1, 3)).map((e) => e.id)).toEqual([0, 1, 2]);
    // acknowledging 1 leaves 2
    expect(ok(await poll(queueId, 1, true)).events).toEqual([{ type: "alert_words", alert_words: ["c"], id: 2 }]);
    const pruned = await poll(queueId, 0, true);
    expect(pruned.status).toBe(400);
    expect(pruned.body).toEqual({
      result: "error",
      code: "BAD_REQUEST",
      msg: "An event newer than 0 has already been pruned!",
    });
    const future = await poll(queueId, 9, true);
    expect(future.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "Event 9 was not in this queue" });
    expect(ok(await poll(queueId, 2, true)).events).toEqual([]);
  });

  it("a parked poll is woken by an event published on the bus", async () => {
    const queueId = await registerQueue(owner());
    const started = Date.now();
    const parked = poll(queueId, -1);
    await new Promise((r) => setTimeout(r, 500));
    publish(sys, [sys.owner.userId], alertWords("wake"));
    const body = ok(await parked);
    expect(body.events).toEqual([{ type: "alert_words", alert_words: ["wake"], id: 0 }]);
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_SECONDS * 1000 - 500);
  });

  it("a poll with nothing to say answers a heartbeat event after EVENT_HEARTBEAT_SECONDS; it takes an id", async () => {
    const queueId = await registerQueue(owner());
    const started = Date.now();
    const body = ok(await poll(queueId, -1));
    const elapsed = Date.now() - started;
    expect(body.events).toEqual([{ type: "heartbeat", id: 0 }]);
    expect(elapsed).toBeGreaterThanOrEqual(HEARTBEAT_SECONDS * 1000 - 100);
    expect(elapsed).toBeLessThan(HEARTBEAT_SECONDS * 1000 + 2000);
    publish(sys, [sys.owner.userId], alertWords("after"));
    expect(await eventsAfter(queueId, 0)).toEqual([{ type: "alert_words", alert_words: ["after"], id: 1 }]);
  });

  it("missing queue_id / last_event_id → Zulip's errors", async () => {
    expect((await owner().get("/events", { last_event_id: -1 })).body).toEqual({
      result: "error",
      code: "BAD_REQUEST",
      msg: "Missing 'queue_id' argument",
    });
    const queueId = await registerQueue(owner());
    expect((await owner().get("/events", { queue_id: queueId })).body).toEqual({
      result: "error",
      code: "BAD_REQUEST",
      msg: "Missing 'last_event_id' argument",
    });
  });

  it("unknown queue and another user's queue → 400 BAD_EVENT_QUEUE_ID", async () => {
    const unknown = await poll("fb67bf8a-c031-47cc-84cf-ed80accacda8", -1, true);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(badQueue("fb67bf8a-c031-47cc-84cf-ed80accacda8"));
    const theirs = await registerQueue(sys.api(other));
    const stolen = await poll(theirs, -1, true);
    expect(stolen.status).toBe(400);
    expect(stolen.body).toEqual(badQueue(theirs));
  });

  it("an idle queue expires after EVENT_QUEUE_IDLE_SECONDS (a polled one does not)", async () => {
    const idle = await registerQueue(owner());
    const polled = await registerQueue(owner());
    for (let t = 0; t < 6; t++) {
      ok(await poll(polled, -1, true));
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect((await poll(idle, -1, true)).body).toEqual(badQueue(idle));
    ok(await poll(polled, -1, true));
  }, 20_000);
});

describe("DELETE /events", () => {
  it("deletes the queue; a second delete, or polling it, → BAD_EVENT_QUEUE_ID", async () => {
    const queueId = await registerQueue(owner());
    expect(ok(await owner().delete("/events", { queue_id: queueId }))).toEqual({ result: "success", msg: "" });
    expect((await owner().delete("/events", { queue_id: queueId })).body).toEqual(badQueue(queueId));
    expect((await poll(queueId, -1, true)).body).toEqual(badQueue(queueId));
  });

  it("another user's queue → 'You are not authorized to access this queue'; a parked poll ends when its queue is deleted", async () => {
    const queueId = await registerQueue(owner());
    const denied = await sys.api(other).delete("/events", { queue_id: queueId });
    expect(denied.status).toBe(400);
    expect(denied.body).toEqual({
      result: "error",
      code: "BAD_REQUEST",
      msg: "You are not authorized to access this queue",
    });
    const parked = poll(queueId, -1);
    await new Promise((r) => setTimeout(r, 300));
    ok(await owner().delete("/events", { queue_id: queueId }));
    expect(ok(await parked).events).toEqual([]);
  });

  it("missing queue_id → REQUEST_VARIABLE_MISSING", async () => {
    expect((await owner().delete("/events", {})).body).toEqual({
      result: "error",
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'queue_id' argument",
      var_name: "queue_id",
    });
  });
});
