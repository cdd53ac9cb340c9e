import type { z } from "zod";
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { expectZulipError, badRequestError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let design: number;
let vault: number;
const sent: Record<string, number> = {};
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  carol = await org.makeUser("Carol", 400, "Carol");
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId], { is_default_stream: true });
  vault = await createChannel(org, alice, "vault", [alice.userId], { invite_only: true });
  await createChannel(org, alice, "archive", [bob.userId]);
  // Bob starts with nothing unread: Notification Bot's messages that open the channels are read
  await org.call(messaging.markAllAsRead, {}, bob);
  const send = async (key: string, user: TestUser, params: ParamsIn<typeof messaging.sendMessage>) =>
    (sent[key] = (await org.call(messaging.sendMessage, params, user)).id);
  await send("topic", alice, { type: "stream", to: "design", topic: "colors", content: "hello @**Bob**" });
  await send("empty", alice, { type: "stream", to: "design", topic: "", content: "general" });
  await send("dm", alice, { type: "private", to: JSON.stringify([bob.userId]), content: "psst" });
  await send("group", carol, { type: "private", to: JSON.stringify([alice.userId, bob.userId]), content: "all of us" });
  await send("vault", alice, { type: "stream", to: "vault", topic: "x", content: "secret" });
});
afterAll(() => org?.stop());

type StateOf<P extends { schema: z.ZodType }> = z.output<P["schema"]>;
/** messaging's keys of the register reply (each present when its part was wanted) */
type MessagingState = Partial<
  StateOf<typeof messaging.maxMessageIdState> &
    StateOf<typeof messaging.subscriptionsState> &
    StateOf<typeof messaging.streamsState> &
    StateOf<typeof messaging.defaultStreamsState> &
    StateOf<typeof messaging.starredMessagesState> &
    StateOf<typeof messaging.mutedTopicsState> &
    StateOf<typeof messaging.userTopicsState> &
    StateOf<typeof messaging.recentPrivateConversationsState> &
    StateOf<typeof messaging.unreadMsgsState>
>;

const register = async (user: TestUser, params: ParamsIn<typeof notifications.registerQueue>) =>
  (await org.call(notifications.registerQueue, params, user)) as unknown as MessagingState;
const names = (channels: Array<{ name: string }> | undefined) => channels!.map((s) => s.name);

describe("POST /register: messaging's state", () => {
  it("subscriptions, unsubscribed and never_subscribed, with subscribers when asked", async () => {
    const body = await register(bob, { fetch_event_types: ["subscription"], include_subscribers: true });
    expect(names(body.subscriptions)).toEqual(["archive", "design"]);
    expect(body.subscriptions![1]).toMatchObject({
      stream_id: design,
      subscribers: [alice.userId, bob.userId].sort((a, b) => a - b),
    });
    expect(body.unsubscribed).toEqual([]);
    // private channels Bob is not in stay hidden
    expect(body.never_subscribed).toEqual([]);
    const carolState = await register(carol, { fetch_event_types: ["subscription"] });
    expect(carolState.subscriptions).toEqual([]);
    expect(names(carolState.never_subscribed)).toEqual(["archive", "design"]);
    expect(carolState.never_subscribed![0]!.subscribers).toBeUndefined();
    expect(body).not.toHaveProperty("max_message_id");
  });

  it("unread_msgs, max_message_id, starred_messages, recent_private_conversations", async () => {
    const body = await register(bob, {
      fetch_event_types: ["message", "update_message_flags", "starred_messages", "recent_private_conversations"],
    });
    expect(body.max_message_id).toBe(sent.group);
    expect(body.starred_messages).toEqual([]);
    expect(body.unread_msgs).toEqual({
      pms: [{ other_user_id: alice.userId, sender_id: alice.userId, unread_message_ids: [sent.dm] }],
      streams: [
        { stream_id: design, topic: "colors", unread_message_ids: [sent.topic] },
        { stream_id: design, topic: "general chat", unread_message_ids: [sent.empty] },
      ],
      huddles: [
        {
          user_ids_string: [alice.userId, bob.userId, carol.userId].sort((a, b) => a - b).join(","),
          unread_message_ids: [sent.group],
        },
      ],
      mentions: [sent.topic],
      count: 4,
      old_unreads_missing: false,
    });
    expect(body.recent_private_conversations).toEqual([
      { max_message_id: sent.group, user_ids: [alice.userId, carol.userId].sort((a, b) => a - b) },
      { max_message_id: sent.dm, user_ids: [alice.userId] },
    ]);
    // the sender's own messages are read
    const aliceState = await register(alice, { fetch_event_types: ["message", "update_message_flags"] });
    expect(aliceState.unread_msgs!.count).toBe(1);
    expect(aliceState.max_message_id).toBe(sent.vault);
    const withEmpty = await register(bob, {
      fetch_event_types: ["message", "update_message_flags"],
      client_capabilities: { empty_topic_name: true },
    });
    expect(withEmpty.unread_msgs!.streams[1]!.topic).toBe("");
  });

  it("streams, default streams, topics state", async () => {
    const body = await register(bob, {
      fetch_event_types: ["stream", "default_streams", "muted_topics", "user_topic"],
    });
    expect(names(body.streams)).toEqual(["archive", "design"]);
    expect(body.realm_default_streams).toEqual([design]);
    // Zulip leaves out the deprecated muted_topics when user_topic is asked for too
    expect(body).not.toHaveProperty("muted_topics");
    expect(body.user_topics).toEqual([]);
    expect(body).not.toHaveProperty("subscriptions");
    expect((await register(bob, { fetch_event_types: ["muted_topics"] })).muted_topics).toEqual([]);
  });
});

describe("conversation audience (POST /typing)", () => {
  const typing = (user: TestUser, params: ParamsIn<typeof notifications.setTypingStatus>) =>
    org.call(notifications.setTypingStatus, params, user);
  const editTyping = (user: TestUser, messageId: number) =>
    org.call(notifications.setMessageEditTypingStatus, { message_id: messageId, op: "start" }, user);
  const invalidMessage = badRequestError("Invalid message(s)");

  it("channel typing needs access to the channel", async () => {
    await typing(alice, { type: "stream", op: "start", stream_id: vault, topic: "x" });
    await expectZulipError(typing(bob, { type: "stream", op: "start", stream_id: vault, topic: "x" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Invalid channel ID",
    });
    await typing(bob, { type: "stream", op: "start", stream_id: design, topic: "x" });
  });

  it("direct typing needs existing users; message typing needs access to the message", async () => {
    await typing(alice, { op: "start", to: [bob.userId] });
    await expectZulipError(typing(alice, { op: "start", to: [987654] }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Invalid user ID 987654",
    });
    await editTyping(bob, sent.dm!);
    await expectZulipError(editTyping(carol, sent.dm!), invalidMessage);
    await expectZulipError(editTyping(bob, sent.vault!), invalidMessage);
    // a public channel's message: anyone who may read the channel's history
    await editTyping(carol, sent.topic!);
  });

  it("max_message_id at a user's first load counts messages moved out of, and into, their channel", async () => {
    // each user's state is loaded on their first register: Dave's and Erin's come after the move
    // (last in this file: the channels it makes would change the other tests' lists)
    const dave = await org.makeUser("Dave", 400, "Dave");
    const erin = await org.makeUser("Erin", 400, "Erin");
    await createChannel(org, alice, "lab", [alice.userId, dave.userId]);
    // private with protected history: its subscribers gain the messages moved in (Zulip adds their rows)
    const yard = await createChannel(org, alice, "yard", [alice.userId, erin.userId], {
      invite_only: true,
      history_public_to_subscribers: false,
    });
    const send = async (to: string, content: string) =>
      (await org.call(messaging.sendMessage, { type: "stream", to, topic: "t", content }, alice)).id;
    const older = await send("yard", "older");
    const stays = await send("lab", "stays");
    const moved = await send("lab", "moved");
    // without Notification Bot's notice in yard, which would be newer still
    await org.call(
      messaging.updateMessage,
      { message_id: moved, stream_id: yard, send_notification_to_new_thread: false },
      alice,
    );
    const maxOf = async (user: TestUser) => (await register(user, { fetch_event_types: ["message"] })).max_message_id;
    // ids come from one counter shared with other organizations: only their order is known
    expect(older).toBeLessThan(stays);
    expect(stays).toBeLessThan(moved);
    // Dave loses the message moved to a channel he is not in (Zulip deletes his row)
    expect(await maxOf(dave)).toBe(stays);
    // Erin gains the message moved into her channel
    expect(await maxOf(erin)).toBe(moved);
  });
});
