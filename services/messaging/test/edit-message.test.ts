/**
 * PATCH /messages/{message_id} (Zulip's check_update_message): content edits,
 * topic and channel moves with their propagate modes, permissions, time
 * limits, edit history, and the update_message events.
 */
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { backdateMessages, createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser, mod: TestUser, guest: TestUser;
let design: number, archive: number, secret: number;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  carol = await org.makeUser("Carol", 400, "Carol");
  mod = await org.makeUser("Mod", 300, "Mod");
  guest = await org.makeUser("Guest", 600, "Guest");
  const members = [alice.userId, bob.userId, mod.userId, guest.userId];
  design = await createChannel(org, alice, "design", members);
  archive = await createChannel(org, alice, "archive", [alice.userId, bob.userId, mod.userId]);
  secret = await createChannel(org, alice, "secret", [alice.userId, mod.userId], { invite_only: true });
});
afterAll(() => org?.stop());

const send = async (user: Credentials, params: ParamsIn<typeof messaging.sendMessage>) =>
  (await org.call(messaging.sendMessage, params, user)).id;
const toDesign = (topic: string, content: string, user: Credentials = alice) =>
  send(user, { type: "stream", to: "design", topic, content });
const edit = (user: Credentials, params: ParamsIn<typeof messaging.updateMessage>) =>
  org.call(messaging.updateMessage, params, user);
const getOne = async (user: Credentials, id: number) =>
  (await org.call(messaging.getMessage, { message_id: id, allow_empty_topic_name: true }, user)).message;
const topicOf = async (id: number) => {
  const m = await getOne(alice, id);
  return m.type === "stream" ? [m.stream_id, m.subject] : null;
};
const unreadOf = async (user: TestUser) =>
  (
    (await org.call(
      notifications.registerQueue,
      { fetch_event_types: ["message", "update_message_flags"] },
      user,
    )) as unknown as {
      unread_msgs: {
        streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
        mentions: number[];
      };
    }
  ).unread_msgs;
const topicsOf = async (streamId: number) =>
  (await org.call(messaging.getStreamTopics, { stream_id: streamId, allow_empty_topic_name: true }, alice)).topics;

describe("content edits", () => {
  it("replace the content, keep the old version in the edit history and mark the message edited", async () => {
    const id = await toDesign("edits", "**first**");
    const sent = await getOne(bob, id);
    const reply = await edit(alice, { message_id: id, content: "second @**Bob**" });
    expect(reply).toEqual({ result: "success", msg: "", detached_uploads: [] });

    const edited = await getOne(bob, id);
    expect(edited.content).toBe(
      '<p>second <span class="user-mention" data-user-id="' + bob.userId + '">@Bob</span></p>',
    );
    expect(edited.last_edit_timestamp).toBeGreaterThanOrEqual(sent.timestamp);
    expect(edited.last_moved_timestamp).toBeUndefined();
    expect(edited.edit_history).toEqual([
      {
        user_id: alice.userId,
        timestamp: edited.last_edit_timestamp,
        prev_content: "**first**",
        prev_rendered_content: "<p><strong>first</strong></p>",
      },
    ]);
    // the edit mentions Bob now: his flags and unread mentions say so
    expect(edited.flags).toEqual(["mentioned"]);
    expect((await unreadOf(bob)).mentions).toContain(id);
    const raw = await org.call(messaging.getMessage, { message_id: id }, bob);
    expect(raw.raw_content).toBe("second @**Bob**");

    // edited again without the mention: the flag goes
    await edit(alice, { message_id: id, content: "third" });
    expect((await getOne(bob, id)).flags).toEqual([]);
    const history = await org.call(messaging.getMessageHistory, { message_id: id }, bob);
    expect(history.message_history.map((v) => [v.content, v.prev_content])).toEqual([
      ["**first**", undefined],
      ["second @**Bob**", "**first**"],
      ["third", "second @**Bob**"],
    ]);
    expect(history.message_history[0]!.user_id).toBe(alice.userId);
    expect(history.message_history[0]!.timestamp).toBe(sent.timestamp);
  });

  it('is "(deleted)" when emptied, and direct messages can be edited too', async () => {
    const id = await send(alice, { type: "direct", to: [bob.userId], content: "oops" });
    await edit(alice, { message_id: id, content: "   " });
    expect((await org.call(messaging.getMessage, { message_id: id }, bob)).raw_content).toBe("(deleted)");
  });

  it("is the sender's alone, within the organization's time limit (600 s and Zulip's 20 s of grace)", async () => {
    const id = await toDesign("edits", "mine");
    const denied = badRequestError("You don't have permission to edit this message");
    await expectZulipError(edit(bob, { message_id: id, content: "yours" }), denied);
    await expectZulipError(edit(org.owner, { message_id: id, content: "the owner's" }), denied);
    await backdateMessages(org, [id], 615);
    expect((await edit(alice, { message_id: id, content: "still in time" })).result).toBe("success");
    await backdateMessages(org, [id], 10);
    await expectZulipError(
      edit(alice, { message_id: id, content: "too late" }),
      badRequestError("The time limit for editing this message has passed"),
    );
    expect((await org.call(messaging.getMessage, { message_id: id }, alice)).raw_content).toBe("still in time");
  });
});

describe("refusals that change nothing", () => {
  it("answers each malformed request with Zulip's message", async () => {
    const id = await toDesign("shape", "x");
    const dm = await send(alice, { type: "direct", to: [bob.userId], content: "dm" });
    const hidden = await send(alice, { type: "stream", to: secret, topic: "t", content: "hidden" });
    const cases: Array<[Credentials, ParamsIn<typeof messaging.updateMessage>, string]> = [
      [alice, { message_id: id }, "Nothing to change"],
      [alice, { message_id: id, topic: "shape" }, "Nothing to change"],
      [
        alice,
        { message_id: id, propagate_mode: "change_all", content: "y" },
        "Invalid propagate_mode without topic edit",
      ],
      [
        alice,
        { message_id: id, stream_id: archive, content: "y" },
        "Cannot change message content while changing channel",
      ],
      [alice, { message_id: id, topic: "✔" }, "General chat cannot be marked as resolved"],
      [alice, { message_id: dm, topic: "t" }, "Direct messages cannot have topics."],
      [bob, { message_id: dm, stream_id: design }, "Direct messages cannot be moved to channels."],
      [bob, { message_id: hidden, topic: "y" }, "Invalid message(s)"],
      [bob, { message_id: id, stream_id: secret }, "Invalid channel ID"],
      [bob, { message_id: id, content: "y" }, "You don't have permission to edit this message"],
    ];
    for (const [user, params, msg] of cases) await expectZulipError(edit(user, params), badRequestError(msg));
    await expectZulipError(edit(alice, { message_id: id, stream_id: 999_999 }), badRequestError("Invalid channel ID"));
    const res = await org.api(alice).patch(`/messages/${id}`, { propagate_mode: "change_some", topic: "z" });
    expect(res.status).toBe(400);
    expect(await topicOf(id)).toEqual([design, "shape"]);
    expect((await getOne(alice, id)).edit_history).toBeUndefined();
  });
});

describe("topic moves", () => {
  it("change_one, change_later and change_all move that much of the topic, recorded on each message", async () => {
    const [a, b, c, d] = [
      await toDesign("plan", "a"),
      await toDesign("plan", "b", bob),
      await toDesign("plan", "c"),
      await toDesign("plan", "d"),
    ];
    await edit(bob, { message_id: d, topic: "one", send_notification_to_new_thread: false });
    await edit(bob, {
      message_id: b,
      topic: "later",
      propagate_mode: "change_later",
      send_notification_to_new_thread: false,
    });
    expect(await Promise.all([a, b, c, d].map(topicOf))).toEqual([
      [design, "plan"],
      [design, "later"],
      [design, "later"],
      [design, "one"],
    ]);
    // change_all from any message of the topic; the new name differs only in case
    await edit(alice, {
      message_id: c,
      topic: "Later",
      propagate_mode: "change_all",
      send_notification_to_new_thread: false,
    });
    expect(await Promise.all([b, c].map(topicOf))).toEqual([
      [design, "Later"],
      [design, "Later"],
    ]);

    const moved = await getOne(bob, c);
    expect(moved.last_edit_timestamp).toBeUndefined();
    expect(moved.edit_history).toEqual(
      [
        { user_id: bob.userId, timestamp: expect.any(Number), prev_topic: "plan", topic: "later" },
        { user_id: alice.userId, timestamp: moved.last_moved_timestamp, prev_topic: "later", topic: "Later" },
      ].reverse(),
    );
    const topics = await topicsOf(design);
    expect(topics.find((t) => t.name === "plan")).toEqual({ name: "plan", max_id: a });
    expect(topics.find((t) => t.name.toLowerCase() === "later")).toEqual({ name: "Later", max_id: c });
    expect(topics.find((t) => t.name === "one")).toEqual({ name: "one", max_id: d });

    const inTopic = await org.call(
      messaging.getMessages,
      {
        anchor: "newest",
        num_before: 10,
        num_after: 0,
        narrow: [
          { operator: "channel", operand: "design" },
          { operator: "topic", operand: "later" },
        ],
      },
      bob,
    );
    expect(inTopic.messages.map((m) => m.id)).toEqual([b, c]);
  });

  it("resolving a topic is recorded but is not a move", async () => {
    const id = await toDesign("bug 12", "fixed?");
    await edit(bob, { message_id: id, topic: "✔ bug 12", propagate_mode: "change_all" });
    const resolved = await getOne(bob, id);
    expect(resolved).toMatchObject({ subject: "✔ bug 12" });
    expect(resolved.last_moved_timestamp).toBeUndefined();
    expect(resolved.edit_history).toEqual([
      { user_id: bob.userId, timestamp: expect.any(Number), prev_topic: "bug 12", topic: "✔ bug 12" },
    ]);
    await edit(bob, { message_id: id, topic: "bug 12" });
    expect((await getOne(bob, id)).last_moved_timestamp).toBeUndefined();
  });

  it("keeps unread messages unread under their new topic", async () => {
    const id = await toDesign("unread here", "read me later");
    await edit(alice, { message_id: id, topic: "unread there", send_notification_to_new_thread: false });
    const streams = (await unreadOf(bob)).streams.filter((s) => s.unread_message_ids.includes(id));
    expect(streams).toEqual([{ stream_id: design, topic: "unread there", unread_message_ids: [id] }]);
  });

  it("after the organization's time limit needs a moderator; change_all says how much may move", async () => {
    const old = await toDesign("history", "old");
    const recent = await toDesign("history", "recent");
    await backdateMessages(org, [old], 8 * 24 * 3600);
    await expectZulipError(
      edit(bob, { message_id: old, topic: "moved" }),
      badRequestError("The time limit for editing this message's topic has passed."),
    );
    const refused = await org.api(bob).patch(`/messages/${recent}`, { topic: "moved", propagate_mode: "change_all" });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      result: "error",
      code: "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
      msg: "You only have permission to move the 1/2 most recent messages in this topic.",
      first_message_id_allowed_to_move: recent,
      total_messages_in_topic: 2,
      total_messages_allowed_to_move: 1,
    });
    expect(await topicOf(recent)).toEqual([design, "history"]);
    await edit(mod, { message_id: recent, topic: "moved", propagate_mode: "change_all" });
    expect(await Promise.all([old, recent].map(topicOf))).toEqual([
      [design, "moved"],
      [design, "moved"],
    ]);
  });
});

describe("channel moves", () => {
  it("move messages to another channel, recorded with the channels and told to every subscriber", async () => {
    const [a, b] = [await toDesign("relocate", "a"), await toDesign("relocate", "b")];
    const bobEvents = await EventReader.register(org.api(bob), {
      event_types: ["update_message", "delete_message"],
      client_capabilities: { empty_topic_name: true },
    });
    const guestEvents = await EventReader.register(org.api(guest), {
      event_types: ["update_message", "delete_message"],
    });
    await edit(bob, { message_id: a, stream_id: archive, propagate_mode: "change_all" });
    expect(await Promise.all([a, b].map(topicOf))).toEqual([
      [archive, "relocate"],
      [archive, "relocate"],
    ]);
    const moved = await getOne(bob, b);
    expect(moved).toMatchObject({ display_recipient: "archive", stream_id: archive });
    expect(moved.edit_history).toEqual([
      { user_id: bob.userId, timestamp: moved.last_moved_timestamp, prev_stream: design, stream: archive },
    ]);

    const [update] = await bobEvents.until((es) => es.some((e) => e.type === "update_message"));
    expect(update).toEqual({
      id: expect.any(Number),
      type: "update_message",
      user_id: bob.userId,
      edit_timestamp: moved.last_moved_timestamp,
      message_id: a,
      message_ids: [a, b],
      rendering_only: false,
      stream_name: "design",
      stream_id: design,
      new_stream_id: archive,
      propagate_mode: "change_all",
      orig_subject: "relocate",
      flags: [],
    });
    // the guest is not subscribed to archive: for them the messages are gone
    const [gone] = await guestEvents.until((es) => es.some((e) => e.type === "delete_message"));
    expect(gone).toEqual({
      id: expect.any(Number),
      type: "delete_message",
      message_id: a,
      message_type: "stream",
      stream_id: design,
      topic: "relocate",
    });
    await expectZulipError(getOne(guest, a), badRequestError("Invalid message(s)"));
    expect(guestEvents.ofType("update_message")).toEqual([]);
  });

  it("needs the permission to move out of the channel and to post in the other", async () => {
    const lobby = await createChannel(org, alice, "lobby", [alice.userId, guest.userId]);
    const id = await toDesign("stay", "x", guest);
    // guests are not among the members allowed to move messages between channels
    await expectZulipError(
      edit(guest, { message_id: id, stream_id: lobby }),
      badRequestError("You don't have permission to move this message"),
    );
    const old = await toDesign("stay", "y", bob);
    await backdateMessages(org, [old], 8 * 24 * 3600);
    await expectZulipError(
      edit(bob, { message_id: old, stream_id: archive }),
      badRequestError("The time limit for editing this message's channel has passed"),
    );
    expect(await Promise.all([id, old].map(topicOf))).toEqual([
      [design, "stay"],
      [design, "stay"],
    ]);
  });

  it("into a private channel: its subscribers get the messages, the others lose them", async () => {
    const id = await toDesign("confidential", "psst");
    await edit(mod, { message_id: id, stream_id: secret });
    expect(await topicOf(id)).toEqual([secret, "confidential"]);
    await expectZulipError(getOne(bob, id), badRequestError("Invalid message(s)"));
    // rows kept: the sender's read one, the moderator's unread one
    expect((await getOne(alice, id)).flags).toEqual(["read"]);
    expect((await getOne(mod, id)).flags).toEqual([]);
  });

  it("updates both channels' first_message_id and tells those who see them", async () => {
    const fresh = await createChannel(org, alice, "fresh", [alice.userId, bob.userId]);
    const first = await send(alice, { type: "stream", to: fresh, topic: "t", content: "first" });
    const second = await send(alice, { type: "stream", to: fresh, topic: "t", content: "second" });
    // the channel opens with Notification Bot's "channel events" message: moved away first
    const opening = (await org.call(messaging.getStreamById, { stream_id: fresh }, alice)).stream.first_message_id!;
    await edit(alice, { message_id: opening, stream_id: archive });
    expect((await org.call(messaging.getStreamById, { stream_id: fresh }, alice)).stream.first_message_id).toBe(first);
    const events = await EventReader.register(org.api(bob), { event_types: ["stream"] });
    await edit(alice, { message_id: first, stream_id: archive });
    const updates = await events.until((es) => es.length >= 1);
    expect(updates).toEqual([
      {
        id: expect.any(Number),
        type: "stream",
        op: "update",
        stream_id: fresh,
        name: "fresh",
        property: "first_message_id",
        value: second,
      },
    ]);
    expect((await org.call(messaging.getStreamById, { stream_id: fresh }, alice)).stream.first_message_id).toBe(second);
    // emptied: the channel has no first message (no event: zulip.yaml's value is never null)
    await edit(alice, { message_id: second, stream_id: archive });
    const channel = await org.call(messaging.getStreamById, { stream_id: fresh }, alice);
    expect(channel.stream.first_message_id).toBeNull();
  });
});

describe("update_message events", () => {
  it("carry a content edit with each user's flags, the empty topic named for older clients", async () => {
    const id = await toDesign("", "before");
    const legacy = await EventReader.register(org.api(bob), { event_types: ["update_message"] });
    await edit(alice, { message_id: id, content: "after @**Bob**", topic: "named" });
    const [event] = await legacy.until((es) => es.length === 1);
    expect(event).toEqual({
      id: expect.any(Number),
      type: "update_message",
      user_id: alice.userId,
      edit_timestamp: expect.any(Number),
      message_id: id,
      message_ids: [id],
      rendering_only: false,
      stream_name: "design",
      stream_id: design,
      propagate_mode: "change_one",
      orig_subject: "general chat",
      subject: "named",
      topic_links: [],
      orig_content: "before",
      orig_rendered_content: "<p>before</p>",
      content: "after @**Bob**",
      rendered_content: `<p>after <span class="user-mention" data-user-id="${bob.userId}">@Bob</span></p>`,
      is_me_message: false,
      flags: ["mentioned"],
    });
    const edited = await getOne(bob, id);
    expect(edited.edit_history).toEqual([
      {
        user_id: alice.userId,
        timestamp: event!.edit_timestamp,
        prev_content: "before",
        prev_rendered_content: "<p>before</p>",
        prev_topic: "",
        topic: "named",
      },
    ]);
    expect(edited.last_edit_timestamp).toBe(event!.edit_timestamp);
    expect(edited.last_moved_timestamp).toBe(event!.edit_timestamp);
  });

  it("reach subscribers who see the channel's history without having received the message", async () => {
    const id = await toDesign("before carol", "old news");
    await org.call(messaging.subscribe, { subscriptions: [{ name: "design" }] }, carol);
    const events = await EventReader.register(org.api(carol), { event_types: ["update_message"] });
    await edit(alice, { message_id: id, content: "new news" });
    const [event] = await events.until((es) => es.length === 1);
    expect(event).toMatchObject({ message_id: id, content: "new news", flags: ["read"] });
  });
});
