/**
 * Zulip's Python bindings (PyPI `zulip` 0.9.1, unmodified) on status and
 * presence, and the terminal client's presence loop as zulip-term 0.7 makes it
 * through them. The bindings have no update_status/get_user_status methods:
 * Zulip's API documentation calls those endpoints through `call_endpoint`, as
 * here. A private system, as in python-bindings.test.ts.
 */
import { expectZulipError } from "../support/call";
import type { TestUser } from "../support/organization";
import { installBindings, runBindings as runAt, type BindingsPlan, type Json } from "../support/python-bindings";
import { startSystem, type TestSystem } from "../support/system";

let sys: TestSystem;
let alice: TestUser, bob: TestUser;

beforeAll(async () => {
  installBindings();
  sys = await startSystem();
  alice = await sys.makeUser("alice", 400, "Alice");
  bob = await sys.makeUser("bob", 400, "Bob");
}, 180_000);
afterAll(() => sys?.stop());

const runBindings = (user: TestUser, plan: BindingsPlan) => runAt(sys.baseUrl, user, plan);

/** An integer UNIX time of the last few seconds (a jest asymmetric matcher). */
const recent = () => ({
  asymmetricMatch: (v: unknown) => Number.isInteger(v) && Math.abs(Date.now() / 1000 - (v as number)) < 10,
  toAsymmetricMatcher: () => "a UNIX time of the last few seconds",
});
const legacy = (status: string) => ({
  aggregated: { client: "website", status, timestamp: recent() },
  website: { client: "website", status, timestamp: recent(), pushable: false },
});

it("update_status (call_endpoint) sets the status; get_user_status reads it; user_status reaches the listener", async () => {
  const { replies, events } = await runBindings(alice, {
    calls: [
      ["call_endpoint", "users/me/status", "POST", { status_text: "on vacation", emoji_name: "car" }],
      ["call_endpoint", `users/${alice.userId}/status`, "GET", {}],
    ],
    event_types: ["user_status"],
    expected_events: 1,
  });
  const status = { status_text: "on vacation", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" };
  expect(replies).toEqual([
    { result: "success", msg: "" },
    { result: "success", msg: "", status },
  ]);
  expect(events).toEqual([{ type: "user_status", user_id: alice.userId, ...status }]);
});

it("update_status's errors reach the bindings as Zulip's", async () => {
  const { replies } = await runBindings(alice, {
    calls: [
      ["call_endpoint", "users/me/status", "POST", { status_text: "x".repeat(61) }],
      ["call_endpoint", "users/me/status", "POST", { emoji_name: "no_such_emoji" }],
    ],
  });
  expect(replies).toEqual([
    { result: "error", code: "BAD_REQUEST", msg: "status_text is too long (limit: 60 characters)" },
    { result: "error", code: "BAD_REQUEST", msg: "Emoji 'no_such_emoji' does not exist" },
  ]);
});

it("update_presence reports and answers the organization's presences; get_realm_presence and get_user_presence read them", async () => {
  const { replies: first } = await runBindings(bob, {
    calls: [["update_presence", { status: "active", ping_only: false, new_user_input: true }]],
  });
  expect(first[0]).toEqual({
    result: "success",
    msg: "",
    presences: expect.objectContaining({ [bob.email]: legacy("active") }),
    server_timestamp: expect.any(Number),
    presence_last_update_id: expect.any(Number),
  });
  const { replies } = await runBindings(alice, {
    calls: [
      ["update_presence", { status: "idle", last_update_id: -1 }],
      ["get_realm_presence"],
      ["get_user_presence", bob.email],
    ],
  });
  expect((replies[0]!.presences as Json)[String(bob.userId)]).toEqual({
    active_timestamp: recent(),
    idle_timestamp: recent(),
  });
  expect(replies[1]).toEqual({
    result: "success",
    msg: "",
    presences: expect.objectContaining({ [bob.email]: legacy("active"), [alice.email]: expect.any(Object) }),
    server_timestamp: expect.any(Number),
  });
  expect(replies[2]).toEqual({
    result: "success",
    msg: "",
    presence: {
      website: { status: "active", timestamp: recent() },
      aggregated: { status: "active", timestamp: recent() },
    },
  });
  await expectZulipError(sys.api(alice).get("/users/nobody@example.com/presence"), {
    status: 400,
    code: "BAD_REQUEST",
    msg: "No such user",
  });
});

it("the terminal client's loop: register's presences by email, then update_presence's replace them", async () => {
  // zulip-term 0.7 registers for these and reads `presences` (legacy, by email) for its user list
  const zulipTermTypes = [
    "realm",
    "presence",
    "subscription",
    "message",
    "starred_messages",
    "update_message_flags",
    "muted_topics",
    "realm_user",
    "realm_user_groups",
    "update_global_notifications",
    "update_display_settings",
    "user_settings",
    "realm_emoji",
    "zulip_version",
  ];
  await runBindings(bob, { calls: [["update_presence", { status: "active" }]] });
  const { replies } = await runBindings(alice, {
    calls: [
      ["register", zulipTermTypes],
      ["update_presence", { status: "idle", new_user_input: false }],
      ["update_presence", { status: "active", new_user_input: true }],
    ],
  });
  const [registered, idle, active] = replies as Array<Json & { presences: Record<string, Json> }>;
  expect(registered!.result).toBe("success");
  expect(registered!.presences[bob.email]).toEqual(legacy("active"));
  for (const reply of [idle, active]) {
    expect(reply!.result).toBe("success");
    // every aggregated entry is what the client's user list reads: status and a recent timestamp
    expect(reply!.presences[bob.email]).toEqual(legacy("active"));
    expect(reply!.presences[alice.email]).toMatchObject({ aggregated: { client: "website" } });
  }
});
