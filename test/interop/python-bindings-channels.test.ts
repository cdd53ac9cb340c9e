/**
 * Zulip's Python bindings, unmodified, on channels, subscriptions and topics:
 * get_stream_id, get_subscribers, update_subscription_settings,
 * remove_subscriptions, update_stream, mute_topic and move_topic, with the
 * events each causes (see python-bindings.test.ts for how the bindings run).
 */
import { ok } from "@teamchat/shared/src/testing/api";
import type { TestUser } from "../support/organization";
import { installBindings, runBindings as runAt, type BindingsPlan, type Json } from "../support/python-bindings";
import { startSystem, type TestSystem } from "../support/system";

let sys: TestSystem;
let owner: TestUser, alice: TestUser;
let lobby: number, annex: number;

beforeAll(async () => {
  installBindings();
  sys = await startSystem();
  owner = sys.owner;
  alice = await sys.makeUser("alice", 400, "Alice");
  const create = async (name: string) =>
    ok(await sys.api(owner).post("/channels/create", { name, subscribers: [owner.userId, alice.userId] })).id as number;
  [lobby, annex] = [await create("lobby"), await create("annex")];
}, 180_000);
afterAll(() => sys?.stop());

const runBindings = (user: TestUser, plan: BindingsPlan) => runAt(sys.baseUrl, user, plan);
const send = async (topic: string, content: string) =>
  ok(await sys.api(alice).post("/messages", { type: "stream", to: "lobby", topic, content })).id as number;
const subscriptionOf = async (user: TestUser, streamId: number) =>
  (ok(await sys.api(user).get("/users/me/subscriptions")).subscriptions as Json[]).find(
    (s) => s.stream_id === streamId,
  );

it("get_stream_id and get_subscribers", async () => {
  const { replies } = await runBindings(alice, {
    calls: [
      ["get_stream_id", "lobby"],
      ["get_subscribers", { kwargs: { stream: "lobby" } }],
    ],
  });
  expect(replies).toEqual([
    { result: "success", msg: "", stream_id: lobby },
    // the bindings pass `stream` on to GET /streams/{id}/members, which Zulip ignores and says so
    {
      result: "success",
      msg: "",
      subscribers: [owner.userId, alice.userId].sort((a, b) => a - b),
      ignored_parameters_unsupported: ["stream"],
    },
  ]);
  const { replies: missing } = await runBindings(alice, { calls: [["get_stream_id", "nowhere"]] });
  expect(missing[0]).toMatchObject({ result: "error", code: "BAD_REQUEST" });
});

it("update_subscription_settings: the properties change, one subscription update event each", async () => {
  const { replies, events } = await runBindings(alice, {
    calls: [
      [
        "update_subscription_settings",
        [
          { stream_id: lobby, property: "pin_to_top", value: true },
          { stream_id: lobby, property: "color", value: "#f00000" },
        ],
      ],
    ],
    event_types: ["subscription"],
    expected_events: 2,
  });
  expect(replies[0]).toMatchObject({ result: "success", msg: "" });
  expect(events).toEqual([
    { type: "subscription", op: "update", stream_id: lobby, property: "pin_to_top", value: true },
    { type: "subscription", op: "update", stream_id: lobby, property: "color", value: "#f00000" },
  ]);
  expect(await subscriptionOf(alice, lobby)).toMatchObject({ pin_to_top: true, color: "#f00000" });
});

it("update_stream: the description changes, a stream update event with its rendering", async () => {
  const { replies, events } = await runBindings(owner, {
    calls: [["update_stream", { stream_id: annex, description: "**side** room" }]],
    event_types: ["stream"],
    expected_events: 1,
  });
  expect(replies[0]).toMatchObject({ result: "success", msg: "" });
  expect(events).toEqual([
    {
      type: "stream",
      op: "update",
      stream_id: annex,
      name: "annex",
      property: "description",
      value: "**side** room",
      rendered_description: "<p><strong>side</strong> room</p>",
    },
  ]);
});

it("mute_topic: the topic is muted, a user_topic event", async () => {
  await send("noisy", "blah");
  const { replies, events } = await runBindings(alice, {
    calls: [["mute_topic", { stream: "lobby", topic: "noisy", op: "add" }]],
    event_types: ["user_topic"],
    expected_events: 1,
  });
  expect(replies[0]).toMatchObject({ result: "success", msg: "" });
  expect(events).toEqual([
    {
      type: "user_topic",
      stream_id: lobby,
      topic_name: "noisy",
      last_updated: expect.any(Number),
      visibility_policy: 1,
    },
  ]);
});

it("move_topic: the whole topic moves to another channel and topic, an update_message event", async () => {
  const [first, second] = [await send("moving", "one"), await send("moving", "two")];
  const { replies, events } = await runBindings(owner, {
    calls: [["move_topic", "lobby", "annex", "moving", "moved", null, "change_all", false, false]],
    event_types: ["update_message"],
    expected_events: 1,
  });
  expect(replies[replies.length - 1]).toMatchObject({ result: "success", msg: "" });
  const [moved] = events as Array<Json & { message_ids: number[] }>;
  expect({ ...moved, message_ids: [...moved!.message_ids].sort((a, b) => a - b) }).toMatchObject({
    type: "update_message",
    message_ids: [first, second],
    stream_id: lobby,
    new_stream_id: annex,
    orig_subject: "moving",
    subject: "moved",
    propagate_mode: "change_all",
  });
  const message = ok(await sys.api(owner).get(`/messages/${second}`)).message as Json;
  expect(message).toMatchObject({ stream_id: annex, subject: "moved" });
});

it("remove_subscriptions: unsubscribed, a subscription remove event", async () => {
  const { replies, events } = await runBindings(alice, {
    calls: [["remove_subscriptions", ["annex"]]],
    event_types: ["subscription"],
    expected_events: 1,
  });
  expect(replies).toEqual([{ result: "success", msg: "", removed: ["annex"], not_removed: [] }]);
  expect(events).toEqual([
    { type: "subscription", op: "remove", subscriptions: [{ name: "annex", stream_id: annex }] },
  ]);
  expect(await subscriptionOf(alice, annex)).toBeUndefined();
});
