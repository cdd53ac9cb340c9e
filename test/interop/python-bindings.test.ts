/**
 * Zulip's Python bindings (PyPI `zulip`), unmodified: each operation group runs
 * python_bindings.py, which makes the calls through the bindings while
 * `call_on_each_event` listens, and checks the replies, the events and the
 * state afterwards. The bindings are installed into the tool cache on first use.
 * A private system: the bindings reach an organization by its URL alone, and the
 * shared system's organizations are told apart by subdomains of localhost, which
 * do not resolve here.
 */
import { ok } from "@teamchat/shared/src/testing/api";
import { expectZulipError } from "../support/call";
import type { TestUser } from "../support/organization";
import { installBindings, runBindings as runAt, type BindingsPlan, type Json } from "../support/python-bindings";
import { startSystem, type TestSystem } from "../support/system";

let sys: TestSystem;
let owner: TestUser, alice: TestUser;
let channelId: number;

beforeAll(async () => {
  installBindings();
  sys = await startSystem();
  owner = sys.owner;
  alice = await sys.makeUser("alice", 400, "Alice");
  channelId = ok(
    await sys.api(owner).post("/channels/create", { name: "bindings", subscribers: [owner.userId, alice.userId] }),
  ).id as number;
}, 180_000);
afterAll(() => sys?.stop());

const runBindings = (user: TestUser, plan: BindingsPlan) => runAt(sys.baseUrl, user, plan);

const send = async (topic: string, content: string) =>
  ok(await sys.api(alice).post("/messages", { type: "stream", to: "bindings", topic, content })).id as number;
const fetchMessage = async (id: number, as: TestUser = owner) =>
  ok(await sys.api(as).get(`/messages/${id}`)).message as Json;

/** update_message's and the reactions' bindings repeat message_id in the body, which Zulip ignores. */
const BODY_MESSAGE_ID_IGNORED = { ignored_parameters_unsupported: ["message_id"] };

it("get_raw_message: the message rendered, and its Markdown source", async () => {
  const id = await send("raw", "**bold** text");
  const { replies } = await runBindings(owner, { calls: [["get_raw_message", id]] });
  expect(Object.keys(replies[0]!).sort()).toEqual(["message", "msg", "raw_content", "result"]);
  expect(replies[0]).toMatchObject({
    result: "success",
    msg: "",
    raw_content: "**bold** text",
    message: {
      id,
      content: "<p><strong>bold</strong> text</p>",
      content_type: "text/html",
      sender_id: alice.userId,
      sender_email: alice.email,
      type: "stream",
      stream_id: channelId,
      display_recipient: "bindings",
      subject: "raw",
      flags: [],
    },
  });
});

it("update_message edits the content: update_message event with the content before and after", async () => {
  const id = await send("edits", "first draft");
  const { replies, events } = await runBindings(alice, {
    calls: [["update_message", { message_id: id, content: "second draft" }]],
    event_types: ["update_message"],
    expected_events: 1,
  });
  expect(replies).toEqual([{ result: "success", msg: "", detached_uploads: [], ...BODY_MESSAGE_ID_IGNORED }]);
  expect(events).toEqual([
    {
      type: "update_message",
      user_id: alice.userId,
      rendering_only: false,
      message_id: id,
      message_ids: [id],
      flags: ["read"],
      edit_timestamp: expect.any(Number),
      stream_name: "bindings",
      stream_id: channelId,
      orig_content: "first draft",
      orig_rendered_content: "<p>first draft</p>",
      content: "second draft",
      rendered_content: "<p>second draft</p>",
      is_me_message: false,
    },
  ]);
  expect(await fetchMessage(id)).toMatchObject({ content: "<p>second draft</p>", subject: "edits" });
});

it("update_message moves a topic (change_all): update_message event with both topics and every message", async () => {
  const first = await send("before move", "one");
  const second = await send("before move", "two");
  const { replies, events } = await runBindings(owner, {
    calls: [
      [
        "update_message",
        {
          message_id: first,
          topic: "after move",
          propagate_mode: "change_all",
          send_notification_to_old_thread: false,
          send_notification_to_new_thread: false,
        },
      ],
    ],
    event_types: ["update_message"],
    expected_events: 1,
  });
  expect(replies).toEqual([{ result: "success", msg: "", detached_uploads: [], ...BODY_MESSAGE_ID_IGNORED }]);
  const [moved] = events as Array<Json & { message_ids: number[] }>;
  expect({ ...moved, message_ids: [...moved!.message_ids].sort((a, b) => a - b) }).toEqual({
    type: "update_message",
    user_id: owner.userId,
    rendering_only: false,
    message_id: first,
    message_ids: [first, second],
    flags: [],
    edit_timestamp: expect.any(Number),
    stream_name: "bindings",
    stream_id: channelId,
    propagate_mode: "change_all",
    orig_subject: "before move",
    subject: "after move",
    topic_links: [],
  });
  expect(events).toHaveLength(1);
  for (const id of [first, second]) expect(await fetchMessage(id)).toMatchObject({ subject: "after move" });
});

it("delete_message: delete_message event (no bulk_message_deletion), then the message is gone", async () => {
  const id = await send("doomed", "soon gone");
  const { replies, events } = await runBindings(owner, {
    calls: [["delete_message", id]],
    event_types: ["delete_message"],
    expected_events: 1,
  });
  expect(replies).toEqual([{ result: "success", msg: "" }]);
  // The bindings register without client capabilities: one message_id, not message_ids.
  expect(events).toEqual([
    { type: "delete_message", message_id: id, message_type: "stream", stream_id: channelId, topic: "doomed" },
  ]);
  await expectZulipError(sys.api(owner).get(`/messages/${id}`), {
    status: 400,
    code: "BAD_REQUEST",
    msg: "Invalid message(s)",
  });
});

it("add_reaction and remove_reaction by emoji name: reaction events op add and remove", async () => {
  const id = await send("reactions", "react to me");
  const octopus = { message_id: id, emoji_name: "octopus" };
  const reactionEvent = (op: string) => ({
    type: "reaction",
    op,
    user_id: owner.userId,
    user: { user_id: owner.userId, email: owner.email, full_name: owner.fullName },
    message_id: id,
    emoji_name: "octopus",
    emoji_code: "1f419",
    reaction_type: "unicode_emoji",
  });

  const added = await runBindings(owner, {
    calls: [["add_reaction", octopus]],
    event_types: ["reaction"],
    expected_events: 1,
  });
  expect(added.replies).toEqual([{ result: "success", msg: "", ...BODY_MESSAGE_ID_IGNORED }]);
  expect(added.events).toEqual([reactionEvent("add")]);
  expect((await fetchMessage(id, alice)).reactions).toEqual([
    expect.objectContaining({
      emoji_name: "octopus",
      emoji_code: "1f419",
      reaction_type: "unicode_emoji",
      user_id: owner.userId,
    }),
  ]);

  const removed = await runBindings(owner, {
    calls: [["remove_reaction", octopus]],
    event_types: ["reaction"],
    expected_events: 1,
  });
  expect(removed.replies).toEqual([{ result: "success", msg: "", ...BODY_MESSAGE_ID_IGNORED }]);
  expect(removed.events).toEqual([reactionEvent("remove")]);
  expect((await fetchMessage(id, alice)).reactions).toEqual([]);
});

it("update_message_flags: read and starred added, starred removed, an event for each", async () => {
  const id = await send("flags", "flag me");
  const flagChange = (op: string, flag: string): [string, Json] => [
    "update_message_flags",
    { messages: [id], op, flag },
  ];
  const { replies, events } = await runBindings(owner, {
    calls: [flagChange("add", "read"), flagChange("add", "starred"), flagChange("remove", "starred")],
    event_types: ["update_message_flags"],
    expected_events: 3,
  });
  expect(replies).toEqual(Array(3).fill({ result: "success", msg: "", messages: [id] }));
  const flagEvent = (op: string, flag: string) => ({
    type: "update_message_flags",
    op,
    operation: op,
    flag,
    messages: [id],
    all: false,
  });
  expect(events).toEqual([flagEvent("add", "read"), flagEvent("add", "starred"), flagEvent("remove", "starred")]);
  expect((await fetchMessage(id)).flags).toEqual(["read"]);
});

it("mark_all_as_read: complete, one update_message_flags event with all: true, nothing unread after", async () => {
  await send("unread", "one");
  await send("unread", "two");
  const { replies, events } = await runBindings(owner, {
    calls: [["mark_all_as_read"]],
    event_types: ["update_message_flags"],
    expected_events: 1,
  });
  expect(replies).toEqual([{ result: "success", msg: "", complete: true }]);
  expect(events).toEqual([
    { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: true },
  ]);
  const state = ok(await sys.api(owner).post("/register", { fetch_event_types: ["message", "update_message_flags"] }));
  expect(state.unread_msgs).toMatchObject({ count: 0, streams: [], pms: [], huddles: [], mentions: [] });
});

it("check_messages_match_narrow with has:link, and get_messages narrowed as zulip-term narrows (pm_with)", async () => {
  const link = await send("narrows", "see https://example.com");
  const plain = await send("narrows", "no link here");
  const dm = ok(await sys.api(alice).post("/messages", { type: "private", to: `[${owner.userId}]`, content: "hi" }))
    .id as number;
  const { replies } = await runBindings(owner, {
    calls: [
      [
        "check_messages_match_narrow",
        { kwargs: { msg_ids: [link, plain], narrow: [{ operator: "has", operand: "link" }] } },
      ],
      ["get_messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: [["pm_with", alice.email]] }],
    ],
  });
  const [matched, fetched] = replies as [{ messages: Record<string, Json> }, { messages: Array<{ id: number }> }];
  expect(matched).toMatchObject({ result: "success" });
  expect(matched.messages).toEqual({
    [link]: { match_content: (await fetchMessage(link)).content, match_subject: "narrows" },
  });
  expect(fetched).toMatchObject({ result: "success" });
  expect(fetched.messages.map((m) => m.id)).toEqual([dm]);
});
