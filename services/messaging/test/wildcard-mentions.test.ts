/**
 * Channel and topic wildcard mentions through the HTTP API, as Zulip flags
 * them (zerver/actions/message_send.py create_user_messages,
 * zerver/actions/message_edit.py update_user_message_flags): @**all** and its
 * synonyms flag every recipient `stream_wildcard_mentioned`, @**topic** only
 * the topic's participants (who sent or reacted to a message of it, and the
 * sender) `topic_wildcard_mentioned`; either adds the legacy
 * `wildcard_mentioned` last (zerver/lib/message.py). GET /messages, message
 * and update_message events, unread_msgs' mentions and is:mentioned agree,
 * also after an edit adds or removes a wildcard, and after a move to another
 * channel (Zulip's do_update_message).
 */
import { messaging, notifications } from "@teamchat/shared";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  carol = await org.makeUser("Carol", 400, "Carol");
  await createChannel(org, alice, "wildcards", [alice.userId, bob.userId, carol.userId]);
});
afterAll(() => org?.stop());

const send = async (user: TestUser, topic: string, content: string) =>
  (await org.call(messaging.sendMessage, { type: "stream", to: "wildcards", topic, content }, user)).id;
const edit = (id: number, content: string) => org.call(messaging.updateMessage, { message_id: id, content }, alice);
const flagsOf = async (user: TestUser, id: number) =>
  (await org.call(messaging.getMessage, { message_id: id }, user)).message.flags;
const unreadMentions = async (user: TestUser) =>
  (
    (await org.call(
      notifications.registerQueue,
      { fetch_event_types: ["message", "update_message_flags"] },
      user,
    )) as unknown as {
      unread_msgs: { mentions: number[] };
    }
  ).unread_msgs.mentions;
/** The messages of a topic of "wildcards" (or of the whole of another channel) that is:mentioned finds for the user. */
const mentionedIds = async (user: TestUser, topic: string | null, channel = "wildcards") => {
  const narrow: Array<[string, string]> = [
    ["stream", channel],
    ["is", "mentioned"],
  ];
  if (topic !== null) narrow.splice(1, 0, ["topic", topic]);
  const { messages } = await org.call(
    messaging.getMessages,
    { anchor: "newest", num_before: 100, num_after: 0, narrow },
    user,
  );
  return messages.map((m) => m.id);
};
const eventFlags = (events: ZulipEvent[], type: string, id: number) =>
  events.find(
    (e) =>
      e.type === type &&
      ((e as { message?: { id: number } }).message?.id === id || (e as { message_id?: number }).message_id === id),
  )?.flags;

const TOPIC = ["topic_wildcard_mentioned", "wildcard_mentioned"];
const CHANNEL = ["stream_wildcard_mentioned", "wildcard_mentioned"];

it("@**topic** flags the topic's participants only, @**all** every recipient; the events say the same", async () => {
  // Bob takes part by sending, Carol never does
  await send(bob, "plans", "first");
  const events = await EventReader.register(org.api(bob), { event_types: ["message"] });
  const carolEvents = await EventReader.register(org.api(carol), { event_types: ["message"] });
  const topicWide = await send(alice, "plans", "@**topic** please read");
  const everyone = await send(alice, "plans", "@**all** please read");

  expect(await flagsOf(bob, topicWide)).toEqual(TOPIC);
  expect(await flagsOf(carol, topicWide)).toEqual([]);
  // the sender is a participant: their own message starts the count
  expect(await flagsOf(alice, topicWide)).toEqual(["read", ...TOPIC]);
  expect(await flagsOf(bob, everyone)).toEqual(CHANNEL);
  expect(await flagsOf(carol, everyone)).toEqual(CHANNEL);

  const bobSaw = await events.until((e) => e.length >= 2);
  expect(eventFlags(bobSaw, "message", topicWide)).toEqual(TOPIC);
  expect(eventFlags(bobSaw, "message", everyone)).toEqual(CHANNEL);
  const carolSaw = await carolEvents.until((e) => e.length >= 2);
  expect(eventFlags(carolSaw, "message", topicWide)).toEqual([]);

  expect(await unreadMentions(bob)).toEqual(expect.arrayContaining([topicWide, everyone]));
  expect(await unreadMentions(carol)).toContain(everyone);
  expect(await unreadMentions(carol)).not.toContain(topicWide);
  expect(await mentionedIds(bob, "plans")).toEqual([topicWide, everyone]);
  expect(await mentionedIds(carol, "plans")).toEqual([everyone]);
});

it("a reaction makes a participant, in the topic whatever the case of its name", async () => {
  const first = await send(alice, "Review", "draft");
  await org.call(messaging.addReaction, { message_id: first, emoji_name: "smile" }, carol);
  const id = await send(alice, "review", "@**topic** done?");
  expect(await flagsOf(carol, id)).toEqual(TOPIC);
  expect(await flagsOf(bob, id)).toEqual([]);
});

it("an edit that adds or removes a wildcard changes the flags, update_message's flags and the mentions", async () => {
  await send(bob, "edits", "here");
  const id = await send(alice, "edits", "nothing yet");
  const events = await EventReader.register(org.api(bob), { event_types: ["update_message"] });

  await edit(id, "@**topic** now");
  expect(await flagsOf(bob, id)).toEqual(TOPIC);
  expect(await flagsOf(carol, id)).toEqual([]);
  expect(eventFlags(await events.until((e) => e.length >= 1), "update_message", id)).toEqual(TOPIC);
  expect(await unreadMentions(bob)).toContain(id);
  expect(await unreadMentions(carol)).not.toContain(id);

  await edit(id, "@**everyone** now");
  expect(await flagsOf(bob, id)).toEqual(CHANNEL);
  expect(await flagsOf(carol, id)).toEqual(CHANNEL);
  expect(await unreadMentions(carol)).toContain(id);

  await edit(id, "no one after all");
  expect(await flagsOf(bob, id)).toEqual([]);
  expect(await flagsOf(carol, id)).toEqual([]);
  expect(await unreadMentions(bob)).not.toContain(id);
  expect(await mentionedIds(bob, "edits")).toEqual([]);
});

it("a move to another channel: who keeps the message keeps its @all mention, who gains it has none until an edit", async () => {
  const dave = await org.makeUser("Dave", 400, "Dave");
  // protected history: its subscribers who did not receive the messages get them, read (Zulip's new rows)
  await createChannel(org, alice, "quiet", [alice.userId, bob.userId, dave.userId], { invite_only: true });
  const id = await send(alice, "moving", "@**all** we move");
  await org.call(
    messaging.updateMessage,
    { message_id: id, stream_id: (await org.call(messaging.getStreamId, { stream: "quiet" }, alice)).stream_id },
    alice,
  );
  const mentionedIn = (user: TestUser) => mentionedIds(user, null, "quiet");

  expect(await flagsOf(bob, id)).toEqual(CHANNEL);
  expect(await flagsOf(dave, id)).toEqual(["read"]);
  expect(await unreadMentions(bob)).toContain(id);
  expect(await mentionedIn(bob)).toEqual([id]);
  expect(await mentionedIn(dave)).toEqual([]);

  // update_user_message_flags: an edit sets the wildcard flags of every row of the message, the gained ones too
  await edit(id, "no one now");
  expect(await flagsOf(bob, id)).toEqual([]);
  await edit(id, "@**all** after all");
  expect(await flagsOf(bob, id)).toEqual(CHANNEL);
  expect(await flagsOf(dave, id)).toEqual(["read", ...CHANNEL]);
  expect(await mentionedIn(dave)).toEqual([id]);
});
