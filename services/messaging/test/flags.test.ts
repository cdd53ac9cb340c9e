/**
 * A user's message flags (Zulip's zerver/views/message_flags.py):
 * POST /messages/flags, /mark_all_as_read, /mark_stream_as_read,
 * /mark_topic_as_read, the update_message_flags events, and what GET /messages,
 * GET /messages/{id} and POST /register show afterwards.
 */
import { identity, messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let design: number;
let ops: number;
let secret: number;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  carol = await org.makeUser("Carol", 400, "Carol");
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId]);
  ops = await createChannel(org, alice, "ops", [alice.userId, bob.userId]);
  secret = await createChannel(org, alice, "secret", [alice.userId], { invite_only: true });
});
afterAll(() => org?.stop());

const send = async (params: ParamsIn<typeof messaging.sendMessage>, from: TestUser = alice) =>
  (await org.call(messaging.sendMessage, params, from)).id;
const toDesign = (topic: string, content = "news") => send({ type: "stream", to: design, topic, content });
const flags = (user: TestUser, messages: number[], op: string, flag: string) =>
  org.call(messaging.updateMessageFlags, { messages, op, flag }, user);
const flagsOf = async (user: TestUser, id: number) =>
  (await org.call(messaging.getMessage, { message_id: id }, user)).message.flags;

interface UnreadState {
  count: number;
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  pms: Array<{ other_user_id: number; unread_message_ids: number[] }>;
  mentions: number[];
}
const personalState = async (user: TestUser) =>
  (await org.call(
    notifications.registerQueue,
    { fetch_event_types: ["message", "update_message_flags", "starred_messages"] },
    user,
  )) as unknown as { unread_msgs: UnreadState; starred_messages: number[] };
const unreadIds = async (user: TestUser) => {
  const { unread_msgs } = await personalState(user);
  return [...unread_msgs.streams, ...unread_msgs.pms].flatMap((s) => s.unread_message_ids).sort((a, b) => a - b);
};
const reader = (user: TestUser, params: Record<string, unknown> = {}) =>
  EventReader.register(org.api(user), { event_types: ["update_message_flags"], ...params });
const flagEvents = async (r: EventReader, n: number) =>
  (await r.until((events) => events.length >= n)).map(({ id: _id, ...event }) => event);

describe("POST /messages/flags", () => {
  it("refuses unknown and bookkeeping flags and unknown operations, and changes nothing", async () => {
    const id = await toDesign("refusals");
    const before = await unreadIds(bob);
    await expectZulipError(flags(bob, [id], "add", "bogus"), badRequestError("Invalid flag: 'bogus'"));
    // the old combined name is shown on messages, not a flag of its own
    await expectZulipError(
      flags(bob, [id], "add", "wildcard_mentioned"),
      badRequestError("Invalid flag: 'wildcard_mentioned'"),
    );
    for (const flag of ["mentioned", "has_alert_word", "historical", "stream_wildcard_mentioned"]) {
      await expectZulipError(flags(bob, [id], "add", flag), badRequestError(`Flag not editable: '${flag}'`));
    }
    await expectZulipError(
      flags(bob, [id], "toggle", "starred"),
      badRequestError("Invalid message flag operation: 'toggle'"),
    );
    await expectZulipError(org.call(messaging.updateMessageFlags, { messages: [id], op: "add" } as never, bob), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'flag' argument",
      var_name: "flag",
    });
    expect(await unreadIds(bob)).toEqual(before);
    expect(await flagsOf(bob, id)).toEqual([]);
  });

  it("marks messages read and unread: the reply, the flags shown, unread_msgs and the user's events", async () => {
    const events = await reader(bob);
    const m1 = await toDesign("reading", "hello @**Bob**");
    const dm = await send({ type: "private", to: [bob.userId], content: "psst" });
    expect(await unreadIds(bob)).toEqual(expect.arrayContaining([m1, dm]));

    expect(await flags(bob, [m1, dm, m1], "add", "read")).toEqual({
      result: "success",
      msg: "",
      messages: [m1, dm, m1],
    });
    expect(await flagsOf(bob, m1)).toEqual(["read", "mentioned"]);
    expect(await flagsOf(bob, dm)).toEqual(["read"]);
    expect(await unreadIds(bob)).not.toContain(m1);
    expect((await personalState(bob)).unread_msgs.mentions).not.toContain(m1);
    // already read: nothing changes, the event names nothing
    await flags(bob, [m1], "add", "read");

    const back = await flags(bob, [m1, dm], "remove", "read");
    expect(back).toEqual({
      result: "success",
      msg: "",
      messages: [m1, dm],
      ignored_because_not_subscribed_channels: [],
    });
    expect(await flagsOf(bob, m1)).toEqual(["mentioned"]);
    const state = await personalState(bob);
    expect(state.unread_msgs.mentions).toContain(m1);
    expect(await unreadIds(bob)).toEqual(expect.arrayContaining([m1, dm]));

    expect(await flagEvents(events, 3)).toEqual([
      { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [m1, dm], all: false },
      { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: false },
      {
        type: "update_message_flags",
        op: "remove",
        operation: "remove",
        flag: "read",
        messages: [m1, dm],
        all: false,
        message_details: {
          [m1]: { type: "stream", stream_id: design, topic: "reading", unmuted_stream_msg: true, mentioned: true },
          [dm]: { type: "private", user_ids: [alice.userId] },
        },
      },
    ]);
  });

  it("counts a wildcard mention as a mention when the message is unread again, as unread_msgs does", async () => {
    const events = await reader(bob);
    const id = await toDesign("wildcards", "hello @**all**");
    await flags(bob, [id], "add", "read");
    await flags(bob, [id], "remove", "read");
    const [, unread] = await flagEvents(events, 2);
    expect((unread!.message_details as Record<string, { mentioned?: boolean }>)[id]!.mentioned).toBe(true);
    expect((await personalState(bob)).unread_msgs.mentions).toContain(id);
  });

  it("names the empty topic in message_details as each client asked at register", async () => {
    const plain = await reader(bob);
    const modern = await reader(bob, { client_capabilities: { empty_topic_name: true } });
    const id = await toDesign("");
    await flags(bob, [id], "add", "read");
    await flags(bob, [id], "remove", "read");
    const topicIn = async (r: EventReader) => {
      const [, unread] = await flagEvents(r, 2);
      return (unread!.message_details as Record<string, { topic: string }>)[id]!.topic;
    };
    expect(await topicIn(plain)).toBe("general chat");
    expect(await topicIn(modern)).toBe("");
  });

  it("stars and unstars: flags, starred_messages, is:starred", async () => {
    const id = await toDesign("stars");
    await flags(bob, [id], "add", "starred");
    expect(await flagsOf(bob, id)).toEqual(["starred"]);
    expect((await personalState(bob)).starred_messages).toContain(id);
    const starred = await org.call(
      messaging.getMessages,
      { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "is", operand: "starred" }] },
      bob,
    );
    expect(starred.messages.map((m) => m.id)).toEqual([id]);
    await flags(bob, [id], "add", "collapsed");
    await flags(bob, [id], "add", "read");
    expect(await flagsOf(bob, id)).toEqual(["read", "starred", "collapsed"]);
    await flags(bob, [id], "remove", "starred");
    await flags(bob, [id], "remove", "collapsed");
    expect(await flagsOf(bob, id)).toEqual(["read"]);
    expect((await personalState(bob)).starred_messages).not.toContain(id);
    // stays read when the last other flag goes
    expect(await unreadIds(bob)).not.toContain(id);
  });

  it("gives a message seen through a channel's shared history a historical row, and refuses unseen ones", async () => {
    const id = await toDesign("history");
    await flags(carol, [id], "add", "starred");
    expect(await flagsOf(carol, id)).toEqual(["read", "starred", "historical"]);
    expect((await personalState(carol)).starred_messages).toEqual([id]);
    // reading what counts as read already needs no row
    await flags(carol, [id], "add", "read");
    expect(await unreadIds(carol)).toEqual([]);

    const hidden = await send({ type: "stream", to: secret, topic: "t", content: "hidden" });
    await expectZulipError(flags(carol, [hidden], "add", "starred"), badRequestError("Invalid message(s)"));
    await expectZulipError(flags(carol, [999_999_999], "add", "starred"), badRequestError("Invalid message(s)"));
    expect((await personalState(carol)).starred_messages).toEqual([id]);

    // unread only in subscribed channels: the channel is named, nothing changes
    const skipped = await flags(carol, [id], "remove", "read");
    expect(skipped.ignored_because_not_subscribed_channels).toEqual([design]);
    expect(await flagsOf(carol, id)).toEqual(["read", "starred", "historical"]);
    expect(await unreadIds(carol)).toEqual([]);
  });

  it("shows a message moved in read to a past member of the channel, whose subscription spanned its id", async () => {
    const from = await createChannel(org, alice, "moved from", [alice.userId]);
    const to = await createChannel(org, alice, "moved to", [alice.userId, carol.userId]);
    const moved = await send({ type: "stream", to: from, topic: "t", content: "on the move" });
    await org.call(messaging.unsubscribe, { subscriptions: ["moved to"] }, carol);
    await org.call(messaging.updateMessage, { message_id: moved, stream_id: to, propagate_mode: "change_all" }, alice);
    // Zulip keeps no row for those not subscribed to the new channel: its shared history, read
    expect(await flagsOf(carol, moved)).toEqual(["read", "historical"]);
  });

  it("makes a message seen in the history of a channel subscribed since unread everywhere, as a historical row", async () => {
    const id = await send({ type: "stream", to: ops, topic: "before dave", content: "old news" });
    const dave = await org.makeUser("Dave", 400, "Dave");
    await org.call(messaging.subscribe, { subscriptions: [{ name: "ops" }] }, dave);
    expect(await flagsOf(dave, id)).toEqual(["read", "historical"]);

    await flags(dave, [id], "remove", "read");
    // Zulip's do_update_message_flags gives it a historical row without "read": every view agrees
    expect(await flagsOf(dave, id)).toEqual(["historical"]);
    expect(await unreadIds(dave)).toEqual([id]);
    const narrowed = await org.call(
      messaging.getMessages,
      { anchor: "newest", num_before: 10, num_after: 0, narrow: [["is", "unread"]] },
      dave,
    );
    expect(narrowed.messages.map((m) => m.id)).toEqual([id]);
    const matched = await org.call(messaging.matchesNarrow, { msg_ids: [id], narrow: [["is", "unread"]] }, dave);
    expect(Object.keys(matched.messages).map(Number)).toEqual([id]);
  });
});

describe("marking many messages read", () => {
  it("POST /mark_topic_as_read reads one topic; an unknown topic is refused", async () => {
    const events = await reader(bob);
    const [a, b, other] = [await toDesign("Topic A"), await toDesign("topic a"), await toDesign("topic b")];
    expect(await org.call(messaging.markTopicAsRead, { stream_id: design, topic_name: "TOPIC A" }, bob)).toEqual({
      result: "success",
      msg: "",
    });
    const unread = await unreadIds(bob);
    expect(unread).toContain(other);
    expect(unread).not.toContain(a);
    expect(unread).not.toContain(b);
    expect(await flagEvents(events, 1)).toEqual([
      { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [a, b], all: false },
    ]);
    await expectZulipError(
      org.call(messaging.markTopicAsRead, { stream_id: design, topic_name: "nope" }, bob),
      badRequestError("No such topic 'nope'"),
    );
    await expectZulipError(
      org.call(messaging.markTopicAsRead, { stream_id: secret, topic_name: "t" }, bob),
      badRequestError("Invalid channel ID"),
    );
  });

  it("POST /mark_stream_as_read reads one channel, not the others", async () => {
    const inDesign = await toDesign("stream read");
    const inOps = await send({ type: "stream", to: ops, topic: "t", content: "ops news" });
    await org.call(messaging.markStreamAsRead, { stream_id: design }, bob);
    const unread = await unreadIds(bob);
    expect(unread).toContain(inOps);
    expect(unread).not.toContain(inDesign);
    expect((await personalState(bob)).unread_msgs.streams.every((s) => s.stream_id !== design)).toBe(true);
    await expectZulipError(
      org.call(messaging.markStreamAsRead, { stream_id: secret }, bob),
      badRequestError("Invalid channel ID"),
    );
  });

  it("both need content access: an administrator not subscribed to a private channel is told it does not exist", async () => {
    // Zulip's access_stream_by_id: administrators have only metadata access to such a channel
    await expectZulipError(
      org.call(messaging.markStreamAsRead, { stream_id: secret }, org.owner),
      badRequestError("Invalid channel ID"),
    );
    await expectZulipError(
      org.call(messaging.markTopicAsRead, { stream_id: secret, topic_name: "t" }, org.owner),
      badRequestError("Invalid channel ID"),
    );
  });

  it("POST /mark_all_as_read reads everything and tells the user's clients with all=true", async () => {
    const events = await reader(bob);
    await toDesign("all");
    await send({ type: "private", to: [bob.userId], content: "dm" });
    expect((await unreadIds(bob)).length).toBeGreaterThan(0);
    expect(await org.call(messaging.markAllAsRead, {}, bob)).toEqual({ result: "success", msg: "", complete: true });
    expect(await unreadIds(bob)).toEqual([]);
    expect((await personalState(bob)).unread_msgs.count).toBe(0);
    expect(await flagEvents(events, 1)).toEqual([
      { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: true },
    ]);
  });
});

describe("POST /messages/flags/narrow", () => {
  const overNarrow = (params: Partial<ParamsIn<typeof messaging.updateMessageFlagsForNarrow>>) =>
    org.call(
      messaging.updateMessageFlagsForNarrow,
      { anchor: "oldest", num_before: 0, num_after: 2, narrow: [], op: "add", flag: "read", ...params },
      bob,
    );

  it("changes the flag over the range GET /messages would pick, with Zulip's counts", async () => {
    const bulk = await createChannel(org, alice, "bulk", [alice.userId, bob.userId]);
    const sent = [];
    for (const n of [1, 2, 3]) sent.push(await send({ type: "stream", to: bulk, topic: "t", content: `m${n}` }));
    const [m1, m2, m3] = sent as [number, number, number];
    const unreadInBulk = [
      { operator: "channel", operand: "bulk" },
      { operator: "topic", operand: "t" },
      { operator: "is", operand: "unread" },
    ];
    expect(await overNarrow({ narrow: unreadInBulk })).toEqual({
      result: "success",
      msg: "",
      processed_count: 2,
      updated_count: 2,
      first_processed_id: m1,
      last_processed_id: m2,
      found_oldest: true,
      found_newest: false,
    });
    // the next call goes on with what is still unread
    expect(await overNarrow({ narrow: unreadInBulk })).toMatchObject({
      processed_count: 1,
      updated_count: 1,
      first_processed_id: m3,
      last_processed_id: m3,
      found_newest: true,
    });
    expect(await overNarrow({ narrow: unreadInBulk })).toMatchObject({
      processed_count: 0,
      updated_count: 0,
      first_processed_id: null,
      last_processed_id: null,
      found_oldest: true,
      found_newest: true,
    });
    expect(await unreadIds(bob)).not.toEqual(expect.arrayContaining([m1]));

    const back = await overNarrow({
      anchor: "newest",
      num_before: 10,
      num_after: 0,
      narrow: [
        { operator: "channel", operand: "bulk" },
        { operator: "topic", operand: "t" },
      ],
      op: "remove",
    });
    expect(back).toEqual({
      result: "success",
      msg: "",
      processed_count: 3,
      updated_count: 3,
      first_processed_id: m1,
      last_processed_id: m3,
      found_oldest: true,
      found_newest: true,
      ignored_because_not_subscribed_channels: [],
    });
    expect(await unreadIds(bob)).toEqual(expect.arrayContaining([m1, m2, m3]));
  });

  it("refuses what GET /messages and POST /messages/flags refuse", async () => {
    await expectZulipError(overNarrow({ anchor: undefined }), badRequestError("Missing 'anchor' argument."));
    await expectZulipError(
      overNarrow({ anchor: "newest", num_before: 1, num_after: 1, include_anchor: false }),
      badRequestError("The anchor can only be excluded at an end of the range"),
    );
    await expectZulipError(overNarrow({ flag: "historical" }), badRequestError("Flag not editable: 'historical'"));
    await expectZulipError(overNarrow({ narrow: [{ operator: "channel", operand: "no such channel" }] }), {
      ...badRequestError("Invalid narrow operator: unknown channel no such channel", "BAD_NARROW"),
      desc: "unknown channel no such channel",
    });
  });
});

describe("GET /messages/{message_id}/read_receipts", () => {
  it("lists the recipients who read it: not the sender, not those who turned read receipts off", async () => {
    const team = await createChannel(org, alice, "receipts", [alice.userId, bob.userId, carol.userId]);
    const id = await send({ type: "stream", to: team, topic: "t", content: "read me" });
    const receipts = async (user: TestUser) =>
      (await org.call(messaging.getReadReceipts, { message_id: id }, user)).user_ids;
    expect(await receipts(alice)).toEqual([]);
    await flags(bob, [id], "add", "read");
    expect(await receipts(alice)).toEqual([bob.userId]);
    await flags(carol, [id], "add", "read");
    expect(await receipts(bob)).toEqual([bob.userId, carol.userId].sort((a, b) => a - b));
    await org.call(identity.updateSettings, { send_read_receipts: false }, carol);
    expect(await receipts(alice)).toEqual([bob.userId]);
    // marked unread again: no longer read
    await flags(bob, [id], "remove", "read");
    expect(await receipts(alice)).toEqual([]);
    const hidden = await send({ type: "stream", to: secret, topic: "t", content: "x" });
    await expectZulipError(
      org.call(messaging.getReadReceipts, { message_id: hidden }, bob),
      badRequestError("Invalid message(s)"),
    );
  });
});
