import { identity } from "@teamchat/shared";
import { ok } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { createUser, registerQueue, stubAudience, stubIfMissing, stubRegisterParts, type TestUser } from "./helpers";

let sys: TestSystem;
let other: TestUser;
let quiet: TestUser;
/** users whose receives_typing_notifications is off, when identity's summaries are stubbed */
const quietIds = new Set<number>();
const emails = new Map<number, string>();
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
  await stubRegisterParts(sys);
  other = await createUser(sys, "other");
  quiet = await createUser(sys, "quiet");
  emails.set(sys.owner.userId, sys.owner.email).set(other.userId, other.email).set(quiet.userId, quiet.email);
  const stub = await stubIfMissing(sys, identity.getUserSummaries, (p) => ({
    users: (p.user_ids as number[])
      .filter((id) => emails.has(id))
      .map((id) => ({
        user_id: id,
        email: emails.get(id)!,
        delivery_email: emails.get(id)!,
        full_name: "x",
        role: 400,
        is_active: true,
        is_bot: false,
        avatar_url: "",
        avatar_version: 1,
        receives_typing_notifications: !quietIds.has(id),
      })),
  }));
  if (stub) quietIds.add(quiet.userId);
  else ok(await sys.api(quiet).patch("/settings", { receives_typing_notifications: false }));
  await stubAudience(sys, [sys.owner.userId, other.userId, quiet.userId]);
});
afterAll(() => sys?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const user = (u: TestUser) => ({ email: u.email, apiKey: u.apiKey });
const ownerUser = () => ({ email: sys.owner.email, apiKey: sys.owner.apiKey, userId: sys.owner.userId });
const eventsOf = async (u: { email: string; apiKey: string }, queue_id: string) =>
  ok(await sys.api(u).get("/events", { queue_id, last_event_id: -1, dont_block: true })).events;
/** events are appended asynchronously after the reply: wait for them */
async function arrived(u: { email: string; apiKey: string }, queue_id: string) {
  for (let i = 0; i < 100; i++) {
    const events = await eventsOf(u, queue_id);
    if (events.length > 0) return events;
    await sleep(50);
  }
  return [];
}

describe("POST /typing", () => {
  it("direct: the recipients (sender included, as in Zulip) who receive typing notifications get Zulip's event", async () => {
    const [mine, theirs, quietQueue] = await Promise.all([
      registerQueue(sys.api(ownerUser())),
      registerQueue(sys.api(user(other))),
      registerQueue(sys.api(user(quiet))),
    ]);
    ok(await sys.api(ownerUser()).post("/typing", { op: "start", to: [other.userId, quiet.userId] }));
    const expected = {
      type: "typing",
      op: "start",
      message_type: "direct",
      sender: { user_id: sys.owner.userId, email: sys.owner.email },
      recipients: [
        { user_id: other.userId, email: other.email },
        { user_id: quiet.userId, email: quiet.email },
        { user_id: sys.owner.userId, email: sys.owner.email },
      ],
      id: 0,
    };
    expect(await arrived(user(other), theirs)).toEqual([expected]);
    expect(await arrived(ownerUser(), mine)).toEqual([expected]);
    expect(await eventsOf(user(quiet), quietQueue)).toEqual([]);
  });

  it("channel: only queues that declared stream_typing_notifications get it", async () => {
    const capable = await registerQueue(sys.api(user(other)), {
      client_capabilities: { stream_typing_notifications: true },
    });
    const legacy = await registerQueue(sys.api(user(other)));
    ok(await sys.api(ownerUser()).post("/typing", { type: "channel", op: "stop", stream_id: 7, topic: "lunch" }));
    expect(await arrived(user(other), capable)).toEqual([
      {
        type: "typing",
        op: "stop",
        message_type: "stream",
        sender: { user_id: sys.owner.userId, email: sys.owner.email },
        stream_id: 7,
        topic: "lunch",
        id: 0,
      },
    ]);
    expect(await eventsOf(user(other), legacy)).toEqual([]);
  });

  it("refuses bad requests with Zulip's errors", async () => {
    const api = sys.api(ownerUser());
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ op: "start" }, { code: "BAD_REQUEST", msg: "Missing 'to' argument" }],
      [
        { op: "start", to: [] },
        { code: "BAD_REQUEST", msg: "Empty 'to' list" },
      ],
      [
        { op: "start", to: [999999] },
        { code: "BAD_REQUEST", msg: "Invalid user ID 999999" },
      ],
      [
        { op: "start", type: "stream", topic: "x" },
        { code: "BAD_REQUEST", msg: "Missing 'stream_id' argument" },
      ],
      [
        { op: "start", type: "channel", stream_id: 7 },
        { code: "BAD_REQUEST", msg: "Missing topic" },
      ],
      [
        { op: "go", to: [other.userId] },
        { code: "BAD_REQUEST", msg: "Invalid op" },
      ],
      [
        { op: "start", type: "huddle", to: [other.userId] },
        { code: "BAD_REQUEST", msg: "Invalid type" },
      ],
      [{ to: [other.userId] }, { code: "REQUEST_VARIABLE_MISSING", msg: "Missing 'op' argument", var_name: "op" }],
    ];
    for (const [params, error] of cases) {
      const res = await api.post("/typing", params);
      expect({ params, status: res.status, body: res.body }).toEqual({
        params,
        status: 400,
        body: { result: "error", ...error },
      });
    }
  });
});

describe("POST /messages/{message_id}/typing", () => {
  it("sends typing_edit_message to the message's audience who receive typing notifications", async () => {
    const theirs = await registerQueue(sys.api(user(other)));
    const quietQueue = await registerQueue(sys.api(user(quiet)));
    ok(await sys.api(ownerUser()).post("/messages/1/typing", { op: "start" }));
    expect(await arrived(user(other), theirs)).toEqual([
      {
        type: "typing_edit_message",
        op: "start",
        sender_id: sys.owner.userId,
        message_id: 1,
        recipient: { type: "channel", channel_id: 7, topic: "edited topic" },
        id: 0,
      },
    ]);
    expect(await eventsOf(user(quiet), quietQueue)).toEqual([]);
    const bad = await sys.api(ownerUser()).post("/messages/1/typing", { op: "maybe" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "Invalid op" });
  });
});
