/**
 * Zulip's Python bindings, unmodified, on linkifiers and code playgrounds:
 * add_realm_filter, get_realm_linkifiers, remove_realm_filter,
 * render_message, send_message and get_raw_message with a linkifier applied.
 * zulip 0.9.1's Client has no method for PATCH /realm/filters/{id}, the legacy
 * GET /realm/filters (only its LegacyInterfaceClient) nor playgrounds: those go
 * through its generic call_endpoint, as a script would.
 */
import type { TestUser } from "../support/organization";
import { installBindings, runBindings as runAt, type BindingsPlan, type Json } from "../support/python-bindings";
import { startSystem, type TestSystem } from "../support/system";

let sys: TestSystem;
let owner: TestUser, alice: TestUser;

beforeAll(async () => {
  installBindings();
  sys = await startSystem();
  owner = sys.owner;
  alice = await sys.makeUser("alice", 400, "Alice");
  const created = await sys.api(owner).post("/channels/create", { name: "tickets", subscribers: [owner.userId] });
  expect(created.status).toBe(200);
}, 180_000);
afterAll(() => sys?.stop());

const runBindings = (user: TestUser, plan: BindingsPlan) => runAt(sys.baseUrl, user, plan);
const SUCCESS = { result: "success", msg: "" };
const TRAC = { pattern: "#(?P<id>[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" };

it("add_realm_filter, get_realm_linkifiers, GET /realm/filters; render_message and a sent message show the link", async () => {
  const { replies } = await runBindings(owner, {
    calls: [
      ["add_realm_filter", TRAC.pattern, TRAC.url_template],
      ["get_realm_linkifiers"],
      // get_realm_filters is only on the bindings' LegacyInterfaceClient
      ["call_endpoint", { kwargs: { url: "realm/filters", method: "GET" } }],
      ["render_message", { content: "Fix #224 today" }],
      ["send_message", { type: "stream", to: "tickets", topic: "bugs", content: "see #42" }],
    ],
  });
  const id = (replies[0] as Json).id as number;
  expect(replies).toEqual([
    { ...SUCCESS, id: expect.any(Number) },
    { ...SUCCESS, linkifiers: [{ ...TRAC, id }] },
    { ...SUCCESS, filters: [[TRAC.pattern, TRAC.url_template, id]] },
    { ...SUCCESS, rendered: '<p>Fix <a href="https://trac.example.com/ticket/224">#224</a> today</p>' },
    { ...SUCCESS, id: expect.any(Number) },
  ]);
  const messageId = (replies[4] as Json).id as number;

  // another user reads the message with the link; the template changed meanwhile applies to the next render
  const second = await runBindings(alice, {
    calls: [["get_raw_message", messageId], ["get_realm_linkifiers"]],
  });
  expect(second.replies[0]).toMatchObject({
    ...SUCCESS,
    message: { content: '<p>see <a href="https://trac.example.com/ticket/42">#42</a></p>' },
  });
  expect(second.replies[1]).toEqual({ ...SUCCESS, linkifiers: [{ ...TRAC, id }] });

  const third = await runBindings(owner, {
    calls: [
      [
        "call_endpoint",
        {
          kwargs: {
            url: `realm/filters/${id}`,
            method: "PATCH",
            request: { pattern: TRAC.pattern, url_template: "https://bugs.example.com/{id}" },
          },
        },
      ],
      ["render_message", { content: "#7" }],
      ["remove_realm_filter", id],
      ["render_message", { content: "#7" }],
      ["get_realm_linkifiers"],
      ["remove_realm_filter", id],
    ],
  });
  expect(third.replies).toEqual([
    SUCCESS,
    { ...SUCCESS, rendered: '<p><a href="https://bugs.example.com/7">#7</a></p>' },
    SUCCESS,
    { ...SUCCESS, rendered: "<p>#7</p>" },
    { ...SUCCESS, linkifiers: [] },
    { result: "error", msg: "Linkifier not found.", code: "BAD_REQUEST" },
  ]);
});

it("add_realm_filter refuses what Zulip refuses, and members may not add one", async () => {
  const { replies } = await runBindings(owner, {
    calls: [["add_realm_filter", "T(?P<id>[0-9]+)", "https://trac.example.com/{ticket}"]],
  });
  expect(replies[0]).toEqual({
    result: "error",
    msg: "Group 'ticket' in URL template is not present in linkifier pattern.",
    code: "BAD_REQUEST",
    errors: { __all__: ["Group 'ticket' in URL template is not present in linkifier pattern."] },
  });
  const member = await runBindings(alice, { calls: [["add_realm_filter", "T(?P<id>[0-9]+)", TRAC.url_template]] });
  expect(member.replies[0]).toEqual({
    result: "error",
    msg: "Must be an organization administrator",
    code: "UNAUTHORIZED_PRINCIPAL",
  });
});

it("playgrounds through call_endpoint: added and removed, with realm_playgrounds events", async () => {
  const playground = { name: "Python", pygments_language: "Python", url_template: "https://py.example.com/?c={code}" };
  const added = await runBindings(owner, {
    calls: [["call_endpoint", { kwargs: { url: "realm/playgrounds", method: "POST", request: playground } }]],
    event_types: ["realm_playgrounds"],
    expected_events: 1,
  });
  const id = (added.replies[0] as Json).id as number;
  expect(added.replies).toEqual([{ ...SUCCESS, id: expect.any(Number) }]);
  expect(added.events).toEqual([{ type: "realm_playgrounds", realm_playgrounds: [{ id, ...playground }] }]);
  const removed = await runBindings(owner, {
    calls: [["call_endpoint", { kwargs: { url: `realm/playgrounds/${id}`, method: "DELETE" } }]],
    event_types: ["realm_playgrounds"],
    expected_events: 1,
  });
  expect(removed.replies).toEqual([SUCCESS]);
  expect(removed.events).toEqual([{ type: "realm_playgrounds", realm_playgrounds: [] }]);
});
