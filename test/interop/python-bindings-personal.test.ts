/**
 * Zulip's Python bindings (PyPI `zulip`), unmodified, on a user's personal
 * settings: the alert-word calls (get_alert_words, add_alert_words,
 * remove_alert_words) with the alert_words events call_on_each_event hears,
 * and, through the bindings' generic call_endpoint (they have no named
 * methods for them), muting a user and a navigation view. A private system,
 * as in python-bindings.test.ts: the bindings reach an organization by its URL
 * alone.
 */
import { ok } from "@teamchat/shared/src/testing/api";
import type { TestUser } from "../support/organization";
import { installBindings, runBindings as runAt, type BindingsPlan } from "../support/python-bindings";
import { startSystem, type TestSystem } from "../support/system";

let sys: TestSystem;
let owner: TestUser, alice: TestUser;

beforeAll(async () => {
  installBindings();
  sys = await startSystem();
  owner = sys.owner;
  alice = await sys.makeUser("alice", 400, "Alice");
}, 180_000);
afterAll(() => sys?.stop());

const runBindings = (user: TestUser, plan: BindingsPlan) => runAt(sys.baseUrl, user, plan);
const success = { result: "success", msg: "" };

it("add_alert_words, get_alert_words, remove_alert_words: replies and alert_words events; later messages are flagged", async () => {
  const { replies, events } = await runBindings(alice, {
    calls: [
      ["add_alert_words", [" deploy ", "Release Party", ""]],
      ["get_alert_words"],
      ["remove_alert_words", ["RELEASE PARTY"]],
    ],
    event_types: ["alert_words"],
    expected_events: 2,
  });
  expect(replies).toEqual([
    { ...success, alert_words: ["deploy", "Release Party"] },
    { ...success, alert_words: ["deploy", "Release Party"] },
    { ...success, alert_words: ["deploy"] },
  ]);
  expect(events).toEqual([
    { type: "alert_words", alert_words: ["deploy", "Release Party"] },
    { type: "alert_words", alert_words: ["deploy"] },
  ]);
  const { id } = ok(
    await sys.api(owner).post("/messages", { type: "private", to: `[${alice.userId}]`, content: "Deploy?" }),
  );
  expect(ok(await sys.api(alice).get(`/messages/${id as number}`)).message).toMatchObject({
    flags: ["has_alert_word"],
  });
});

it("an over-long alert word is refused with Zulip's error", async () => {
  const { replies } = await runBindings(alice, { calls: [["add_alert_words", ["x".repeat(101)]]] });
  expect(replies).toEqual([
    { result: "error", code: "BAD_REQUEST", msg: "alert_words[0] is too long (limit: 100 characters)" },
  ]);
});

it("call_endpoint: muting and unmuting a user, with the muted_users events; Zulip's error after", async () => {
  const url = `users/me/muted_users/${owner.userId}`;
  const { replies, events } = await runBindings(alice, {
    calls: [
      ["call_endpoint", url, "POST"],
      ["call_endpoint", url, "DELETE"],
    ],
    event_types: ["muted_users"],
    expected_events: 2,
  });
  expect(replies).toEqual([success, success]);
  expect(events).toEqual([
    { type: "muted_users", muted_users: [{ id: owner.userId, timestamp: expect.any(Number) }] },
    { type: "muted_users", muted_users: [] },
  ]);
  const again = await runBindings(alice, { calls: [["call_endpoint", url, "DELETE"]] });
  expect(again.replies).toEqual([{ result: "error", code: "BAD_REQUEST", msg: "User is not muted" }]);
});

it("call_endpoint: a navigation view added (is_pinned sent as JSON) and listed", async () => {
  const { replies, events } = await runBindings(alice, {
    calls: [
      ["call_endpoint", "navigation_views", "POST", { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" }],
      ["call_endpoint", "navigation_views", "GET"],
    ],
    event_types: ["navigation_view"],
    expected_events: 1,
  });
  const view = { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" };
  expect(replies).toEqual([success, { ...success, navigation_views: [view] }]);
  expect(events).toEqual([{ type: "navigation_view", op: "add", navigation_view: view }]);
});
