import { jetstream } from "@nats-io/jetstream";
import { notifications } from "@teamchat/shared";
import {
  badRequestError,
  expectZulipError,
  type ExpectedZulipError,
  type ZulipErrorReply,
} from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { EXPIRY_MARGIN_MS, encodeWake, subjectOf } from "../src/event-store";
import { ParkedPolls } from "../src/parked-polls";
import { QUEUE_EVENT_TYPES, catalogueEvents, noProfileFields, registerQueue, setting } from "./helpers";
import { whenPolling } from "../../../test/support/events";

const pollOf =
  (org: TestOrganization) =>
  (queue_id: string, last_event_id: number, dont_block = false, user = org.owner) =>
    org.call(notifications.getEvents, { queue_id, last_event_id, dont_block }, user);
/**
 * The events without their ids, after checking that the ids increase: event ids
 * are increasing per queue but not consecutive (zulip.yaml).
 */
const withoutIds = (events: Array<{ id: number }>) => {
  const ids = events.map((e) => e.id);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(ids).size).toBe(ids.length);
  return events.map(({ id: _id, ...rest }) => rest);
};
const badQueue = (id: string): ExpectedZulipError => ({
  status: 400,
  code: "BAD_EVENT_QUEUE_ID",
  msg: `Bad event queue ID: ${id}`,
  queue_id: id,
});

describe("on the shared system", () => {
  let org: TestOrganization;
  let other: TestUser;
  let publish: ReturnType<typeof catalogueEvents>;
  let poll: ReturnType<typeof pollOf>;
  beforeAll(async () => {
    org = await testOrganization();
    other = await org.makeUser("other");
    publish = catalogueEvents(org);
    poll = pollOf(org);
  });
  afterAll(() => org?.stop());

  const reader = (user: TestUser, params: Record<string, unknown> = {}) =>
    EventReader.register(org.api(user), { event_types: QUEUE_EVENT_TYPES, ...params });

  describe("POST /register", () => {
    it("creates a queue: queue_id (uuid), last_event_id -1, version fields; an empty dont_block poll", async () => {
      const body = await org.call(notifications.registerQueue, { event_types: ["alert_words"] }, org.owner);
      expect(body.queue_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(body.last_event_id).toBe(-1);
      expect(typeof body.zulip_version).toBe("string");
      expect(body.zulip_feature_level).toBeGreaterThanOrEqual(417);
      expect(await poll(body.queue_id, -1, true)).toEqual({
        result: "success",
        msg: "",
        events: [],
        queue_id: body.queue_id,
      });
    });

    it("accepts event_types=null as zulip-js sends it (every type), multipart too", async () => {
      // the encoding is the point: raw HTTP
      const res = await org.api(org.owner).post("/register", { event_types: null, apply_markdown: true }, "multipart");
      expect(res.status).toBe(200);
      const queueId = res.body.queue_id as string;
      publish.noProfileFields([org.owner.userId]);
      expect(withoutIds((await poll(queueId, -1)).events)).toEqual([noProfileFields]);
    });

    it("rejects malformed parameters with Zulip's messages", async () => {
      // values the contract's types refuse: raw HTTP, as a client could send them
      const api = org.api(org.owner);
      await expectZulipError(api.post("/register", { event_types: "alert_words" }), {
        status: 400,
        code: "BAD_REQUEST",
        msg: "event_types is not valid JSON",
      });
      await expectZulipError(api.post("/register", { event_types: { a: 1 } }), {
        status: 400,
        code: "BAD_REQUEST",
        msg: "event_types is not a list",
      });
      await expectZulipError(api.post("/register", { queue_lifespan_secs: -1 }), {
        status: 400,
        code: "BAD_REQUEST",
        msg: "queue_lifespan_secs is too small",
      });
    });
  });

  describe("GET /events", () => {
    it("delivers events to the listed users' queues only, with increasing ids", async () => {
      const mine = await reader(org.owner);
      const theirs = await reader(other);
      publish.setting([org.owner.userId], "one");
      publish.setting("all", "two");
      expect(withoutIds(await mine.until((es) => es.length === 2))).toEqual([setting("one"), setting("two")]);
      // appended in publishing order: had the first reached this queue, it would be here before the second
      expect(withoutIds(await theirs.until((es) => es.length === 1))).toEqual([setting("two")]);
    });

    it("event_types filters what is queued", async () => {
      const queueId = await registerQueue(org, org.owner, { event_types: ["custom_profile_fields"] });
      publish.setting([org.owner.userId], "filtered out");
      publish.noProfileFields([org.owner.userId]);
      expect(withoutIds((await poll(queueId, -1)).events)).toEqual([noProfileFields]);
    });

    it("last_event_id acknowledges: acknowledged events are not answered again; unknown ids are refused", async () => {
      const queueId = await registerQueue(org, org.owner);
      for (const w of ["a", "b", "c"]) publish.setting([org.owner.userId], w);
      // last_event_id -1 acknowledges nothing: poll until all are there
      let events = (await poll(queueId, -1)).events;
      while (events.length < 3) events = (await poll(queueId, -1, true)).events;
      expect(withoutIds(events)).toEqual([setting("a"), setting("b"), setting("c")]);
      const ids = events.map((e) => e.id);
      // acknowledging the first leaves the rest
      expect((await poll(queueId, ids[0]!, true)).events).toEqual(events.slice(1));
      const unknown = ids[2]! + 1000;
      await expectZulipError(poll(queueId, unknown, true), {
        status: 400,
        code: "BAD_REQUEST",
        msg: `Event ${unknown} was not in this queue`,
      });
      expect((await poll(queueId, ids[2]!, true)).events).toEqual([]);
    });

    it("an event another instance appended in between is answered too: the next event's wake does not stand for both", async () => {
      const queueId = await registerQueue(org, org.owner);
      publish.setting([org.owner.userId], "first");
      const [first] = (await poll(queueId, -1)).events;
      // another instance's append (a heartbeat, as a poll parked there appends one), without a wake
      const between = await jetstream(org.nc).publish(subjectOf(queueId), JSON.stringify({ type: "heartbeat" }));
      publish.setting([org.owner.userId], "second");
      expect(withoutIds((await poll(queueId, between.seq)).events)).toEqual([setting("second")]);
      expect(withoutIds((await poll(queueId, first!.id, true)).events)).toEqual([
        { type: "heartbeat" },
        setting("second"),
      ]);
    });

    it("the wakes kept with their events follow one another: one after a gap starts them again, at most four", async () => {
      const parked = new ParkedPolls(org.nc);
      try {
        const queueId = "a-queue-of-crafted-wakes";
        const wake = (id: number, previous?: number) =>
          org.nc.publish(
            notifications.queueWakeSubject(queueId),
            encodeWake(id, previous === undefined ? undefined : { previous, data: `{"type":"e${id}"}` }),
          );
        const kept = async () => {
          await org.nc.flush();
          return parked.carriedWakes(queueId).map((w) => [w.carried.previous, w.id]);
        };
        wake(10, 5);
        wake(11, 10);
        expect(await kept()).toEqual([
          [5, 10],
          [10, 11],
        ]);
        // 12 was appended without a wake carrying it: 13 cannot answer a poll that has 11 only with the rest
        wake(13, 12);
        expect(await kept()).toEqual([[12, 13]]);
        for (const id of [14, 15, 16, 17]) wake(id, id - 1);
        expect(await kept()).toEqual([
          [13, 14],
          [14, 15],
          [15, 16],
          [16, 17],
        ]);
        wake(18);
        expect(await kept()).toEqual([]);
      } finally {
        parked.stop();
      }
    });

    it("an id older than what was pruned is refused, as Zulip does", async () => {
      // A queue whose expiry is always near is written at every visit (EXPIRY_MARGIN_MS), which prunes.
      const queueId = await registerQueue(org, org.owner, { queue_lifespan_secs: EXPIRY_MARGIN_MS / 1000 });
      for (const w of ["a", "b"]) publish.setting([org.owner.userId], w);
      let events = (await poll(queueId, -1, true)).events;
      while (events.length < 2) events = (await poll(queueId, -1, true)).events;
      expect((await poll(queueId, events[0]!.id, true)).events).toEqual([events[1]]);
      await expectZulipError(poll(queueId, -1, true), {
        status: 400,
        code: "BAD_REQUEST",
        msg: "An event newer than -1 has already been pruned!",
      });
    });

    it("missing queue_id / last_event_id → Zulip's errors", async () => {
      await expectZulipError(org.call(notifications.getEvents, { last_event_id: -1 }, org.owner), {
        status: 400,
        code: "BAD_REQUEST",
        msg: "Missing 'queue_id' argument",
      });
      const queueId = await registerQueue(org, org.owner);
      await expectZulipError(org.call(notifications.getEvents, { queue_id: queueId }, org.owner), {
        status: 400,
        code: "BAD_REQUEST",
        msg: "Missing 'last_event_id' argument",
      });
    });

    it("unknown queue → 400 BAD_EVENT_QUEUE_ID; another user's queue → Zulip's refusal", async () => {
      const unknown = "fb67bf8a-c031-47cc-84cf-ed80accacda8";
      await expectZulipError(poll(unknown, -1, true), badQueue(unknown));
      const theirs = await registerQueue(org, other);
      await expectZulipError(
        poll(theirs, -1, true),
        badRequestError("You are not authorized to get events from this queue"),
      );
    });
  });

  describe("DELETE /events", () => {
    it("deletes the queue; a second delete, or polling it, → BAD_EVENT_QUEUE_ID", async () => {
      const queueId = await registerQueue(org, org.owner);
      expect(await org.call(notifications.deleteQueue, { queue_id: queueId }, org.owner)).toEqual({
        result: "success",
        msg: "",
      });
      await expectZulipError(org.call(notifications.deleteQueue, { queue_id: queueId }, org.owner), badQueue(queueId));
      await expectZulipError(poll(queueId, -1, true), badQueue(queueId));
    });

    it("another user's queue → 'You are not authorized to access this queue'; a parked poll ends when its queue is deleted", async () => {
      const queueId = await registerQueue(org, org.owner);
      await expectZulipError(org.call(notifications.deleteQueue, { queue_id: queueId }, other), {
        status: 400,
        code: "BAD_REQUEST",
        msg: "You are not authorized to access this queue",
      });
      const parked = await whenPolling(org.nc, queueId, () => poll(queueId, -1));
      await org.call(notifications.deleteQueue, { queue_id: queueId }, org.owner);
      // A poll that found the queue ends with no events (not a heartbeat 50 s later); one whose
      // first look came after the delete is told the queue is gone. Which one depends only on
      // which of the two requests reached the queue first.
      const outcome = await parked.reply.then(
        (reply) => ({ events: reply.events }),
        (err: ZulipErrorReply) => ({ error: err.body }),
      );
      const { status: _status, ...gone } = badQueue(queueId);
      expect([{ events: [] }, { error: { result: "error", ...gone } }]).toContainEqual(outcome);
    });

    it("missing queue_id → REQUEST_VARIABLE_MISSING", async () => {
      // what the contract's types refuse: raw HTTP
      await expectZulipError(org.api(org.owner).delete("/events", {}), {
        status: 400,
        code: "REQUEST_VARIABLE_MISSING",
        msg: "Missing 'queue_id' argument",
        var_name: "queue_id",
      });
    });
  });
});

describe("heartbeats and idle queues (a private system with short timings)", () => {
  const HEARTBEAT_SECONDS = 3;
  let sys: TestSystem;
  let publish: ReturnType<typeof catalogueEvents>;
  let poll: ReturnType<typeof pollOf>;
  beforeAll(async () => {
    sys = await startSystem({
      env: {
        EVENT_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
        EVENT_QUEUE_IDLE_SECONDS: "4",
        RATE_LIMIT_REQUESTS: "10000",
      },
    });
    publish = catalogueEvents(sys);
    poll = pollOf(sys);
  });
  afterAll(() => sys?.stop());

  it("a parked poll is woken by an event published on the bus", async () => {
    const queueId = await registerQueue(sys, sys.owner);
    const started = Date.now();
    const parked = await whenPolling(sys.nc, queueId, () => poll(queueId, -1));
    publish.setting([sys.owner.userId], "wake");
    expect(withoutIds((await parked.reply).events)).toEqual([setting("wake")]);
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_SECONDS * 1000 - 500);
  });

  it("a poll with nothing to say answers a heartbeat event after EVENT_HEARTBEAT_SECONDS; it takes an id", async () => {
    const queueId = await registerQueue(sys, sys.owner);
    const started = Date.now();
    const body = await poll(queueId, -1);
    const elapsed = Date.now() - started;
    expect(withoutIds(body.events)).toEqual([{ type: "heartbeat" }]);
    expect(elapsed).toBeGreaterThanOrEqual(HEARTBEAT_SECONDS * 1000 - 100);
    expect(elapsed).toBeLessThan(HEARTBEAT_SECONDS * 1000 + 2000);
    publish.setting([sys.owner.userId], "after");
    const after = await poll(queueId, body.events[0]!.id);
    expect(withoutIds(after.events)).toEqual([setting("after")]);
    expect(after.events[0]!.id).toBeGreaterThan(body.events[0]!.id);
  });

  it("an idle queue expires after EVENT_QUEUE_IDLE_SECONDS (a polled one does not)", async () => {
    const idle = await registerQueue(sys, sys.owner);
    const polled = await registerQueue(sys, sys.owner);
    // two polls that each end in a heartbeat: past the idle limit, with the polled queue visited all along
    let last = -1;
    for (let round = 0; round < 2; round++) {
      const { events } = await poll(polled, last);
      expect(withoutIds(events)).toEqual([{ type: "heartbeat" }]);
      last = events[0]!.id;
    }
    await expectZulipError(poll(idle, -1, true), badQueue(idle));
    await poll(polled, last, true);
  }, 20_000);
});

describe("parked polls and the instance's handler slots (BUS_CONCURRENCY=2)", () => {
  let sys: TestSystem;
  let publish: ReturnType<typeof catalogueEvents>;
  let poll: ReturnType<typeof pollOf>;
  beforeAll(async () => {
    // heartbeats far beyond the test's timeout: a request stuck behind parked polls would fail it
    sys = await startSystem({ env: { BUS_CONCURRENCY: "2", EVENT_HEARTBEAT_SECONDS: "40" } });
    publish = catalogueEvents(sys);
    poll = pollOf(sys);
  });
  afterAll(() => sys?.stop());

  it("more parked polls than slots do not hold other requests back", async () => {
    const queues = await Promise.all([1, 2, 3].map(() => registerQueue(sys, sys.owner)));
    const parked = await Promise.all(queues.map((q) => whenPolling(sys.nc, q, () => poll(q, -1))));
    // answered while three polls are parked on an instance that runs two handlers at a time
    const another = await registerQueue(sys, sys.owner);
    expect((await poll(another, -1, true)).events).toEqual([]);
    publish.setting([sys.owner.userId], "wake");
    for (const p of parked) expect(withoutIds((await p.reply).events)).toEqual([setting("wake")]);
  });
});
