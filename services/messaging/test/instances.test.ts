/**
 * Two messaging instances, each with its own in-memory caches: what one of
 * them writes, the other answers at once. Requests are spread over the two by
 * NATS queue groups, so each check is repeated until both instances have
 * answered it many times over.
 */
import { messaging, notifications, realmConfig } from "@teamchat/shared";
import { startSystem, type TestSystem } from "../../../test/support/system";
import type { TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

let sys: TestSystem;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  // every check is asked ROUNDS times: more than Zulip's default 200 requests a minute
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "5000" } });
  alice = await sys.makeUser("Alice", 400, "Alice");
  bob = await sys.makeUser("Bob", 400, "Bob");
  await createChannel(sys, alice, "design", [alice.userId, bob.userId]);
  // Bob starts with nothing unread: Notification Bot's message that opens the channel is read
  await sys.call(messaging.markAllAsRead, {}, bob);
  await sys.startService("messaging");
});
afterAll(() => sys?.stop());

/** Enough calls that both instances answer several of them whatever the queue group's draw. */
const ROUNDS = 12;

const personalState = async (user: TestUser) =>
  (await sys.call(
    notifications.registerQueue,
    { fetch_event_types: ["message", "update_message_flags", "recent_private_conversations"] },
    user,
  )) as unknown as {
    unread_msgs: { count: number; streams: Array<{ unread_message_ids: number[] }>; mentions: number[] };
    max_message_id: number;
    recent_private_conversations: Array<{ user_ids: number[]; max_message_id: number }>;
  };
const unreadOf = async (user: TestUser) => (await personalState(user)).unread_msgs;
const firstUnread = async (user: TestUser) =>
  (
    await sys.call(
      messaging.getMessages,
      { anchor: "first_unread", num_before: 0, num_after: 1, narrow: [{ operator: "is", operand: "unread" }] },
      user,
    )
  ).anchor;

describe("unread messages, kept in memory by each instance", () => {
  it("a message sent through either instance is unread on both, in register and in GET /messages", async () => {
    // both instances load Bob's (empty) unread set
    for (let i = 0; i < ROUNDS; i++) expect((await unreadOf(bob)).count).toBe(0);
    const sent: number[] = [];
    for (let n = 0; n < 3; n++) {
      const { id } = await sys.call(
        messaging.sendMessage,
        { type: "stream", to: "design", topic: "t", content: n === 2 ? "@**Bob** look" : `news ${n}` },
        alice,
      );
      sent.push(id);
      for (let i = 0; i < ROUNDS; i++) {
        const unread = await unreadOf(bob);
        expect(unread.count).toBe(sent.length);
        expect(unread.streams.flatMap((s) => s.unread_message_ids)).toEqual(sent);
        expect(unread.mentions).toEqual(n === 2 ? [sent[2]] : []);
        expect(await firstUnread(bob)).toBe(sent[0]);
      }
    }
    // the sender read their own messages, on both instances
    for (let i = 0; i < ROUNDS; i++) expect((await unreadOf(alice)).count).toBe(0);
    const { id: dm } = await sys.call(
      messaging.sendMessage,
      { type: "private", to: [bob.userId], content: "hi" },
      alice,
    );
    for (let i = 0; i < ROUNDS; i++) {
      const state = await personalState(bob);
      expect(state.max_message_id).toBe(dm);
      expect(state.recent_private_conversations).toEqual([{ user_ids: [alice.userId], max_message_id: dm }]);
    }
  });
});

describe("channels and subscriptions, kept in memory by each instance", () => {
  it("a new channel, its first message and a new subscriber are seen at once through both instances", async () => {
    // both instances load the organization's channels and Bob's subscriptions
    for (let i = 0; i < ROUNDS; i++) {
      await sys.call(messaging.getSubscriptions, {}, bob);
      await sys.call(messaging.getStreams, {}, bob);
    }
    const streamId = await createChannel(sys, alice, "launch", [alice.userId]);
    // its first message is Notification Bot's "channel events" one, sent as it was created
    const { messages: opening } = await sys.call(
      messaging.getMessages,
      { anchor: "oldest", num_before: 0, num_after: 1, narrow: [{ operator: "channel", operand: "launch" }] },
      alice,
    );
    for (let i = 0; i < ROUNDS; i++) {
      const { stream } = await sys.call(messaging.getStreamById, { stream_id: streamId }, bob);
      expect(stream).toMatchObject({ name: "launch", first_message_id: opening[0]!.id });
    }
    await sys.call(messaging.sendMessage, { type: "stream", to: "launch", topic: "t", content: "first" }, alice);
    for (let i = 0; i < ROUNDS; i++) {
      const { stream } = await sys.call(messaging.getStreamById, { stream_id: streamId }, bob);
      expect(stream.first_message_id).toBe(opening[0]!.id);
    }
    await sys.call(messaging.subscribe, { subscriptions: [{ name: "launch" }] }, bob);
    for (let i = 0; i < ROUNDS; i++) {
      const { subscriptions } = await sys.call(messaging.getSubscriptions, {}, bob);
      expect(subscriptions.map((s) => s.name).sort()).toEqual(["design", "launch"]);
    }
    // the channel's subscribers as each instance knows them: Bob receives what is sent next
    for (let i = 0; i < ROUNDS; i++) {
      const { id } = await sys.call(
        messaging.sendMessage,
        { type: "stream", to: "launch", topic: "t", content: `to both ${i}` },
        alice,
      );
      const { messages } = await sys.call(
        messaging.getMessages,
        { anchor: id, num_before: 0, num_after: 0, narrow: [{ operator: "channel", operand: "launch" }] },
        bob,
      );
      expect(messages[0]?.flags).toEqual([]);
    }
  });
});

describe("flags, kept in memory by each instance", () => {
  it("flags changed through either instance show on both at once", async () => {
    const { id } = await sys.call(
      messaging.sendMessage,
      { type: "stream", to: "design", topic: "flags", content: "star me" },
      alice,
    );
    const flagsOf = async () => (await sys.call(messaging.getMessage, { message_id: id }, bob)).message.flags;
    for (let i = 0; i < ROUNDS; i++) expect(await flagsOf()).toEqual([]);
    const steps: Array<[op: "add" | "remove", flag: string, expected: string[]]> = [
      ["add", "read", ["read"]],
      ["add", "starred", ["read", "starred"]],
      ["remove", "read", ["starred"]],
      ["remove", "starred", []],
    ];
    for (const [op, flag, expected] of steps) {
      await sys.call(messaging.updateMessageFlags, { messages: [id], op, flag }, bob);
      for (let i = 0; i < ROUNDS; i++) {
        expect(await flagsOf()).toEqual(expected);
        expect((await unreadOf(bob)).streams.flatMap((s) => s.unread_message_ids).includes(id)).toBe(
          !expected.includes("read"),
        );
      }
    }
  });
});

describe("reactions, kept in memory by each instance", () => {
  it("a reaction added or removed through either instance shows on both at once, in every way messages are read", async () => {
    const { id } = await sys.call(
      messaging.sendMessage,
      { type: "stream", to: "design", topic: "reactions", content: "react to me" },
      alice,
    );
    // each instance's recent messages of the channel, and its messages by id
    const newestPage = async () =>
      (
        await sys.call(
          messaging.getMessages,
          { anchor: "newest", num_before: 1, num_after: 0, narrow: [{ operator: "channel", operand: "design" }] },
          bob,
        )
      ).messages.find((m) => m.id === id)?.reactions;
    const byId = async () => (await sys.call(messaging.getMessages, { message_ids: [id] }, bob)).messages[0]?.reactions;
    const reactions = async () => [await newestPage(), await byId()];
    for (let i = 0; i < ROUNDS; i++) expect(await reactions()).toEqual([[], []]);
    const octopus = { emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji", user_id: bob.userId };
    for (const [added, expected] of [
      [true, [octopus]],
      [false, []],
    ] as const) {
      await sys.call(
        added ? messaging.addReaction : messaging.removeReaction,
        { message_id: id, emoji_name: "octopus" },
        bob,
      );
      for (let i = 0; i < ROUNDS; i++) expect(await reactions()).toEqual([expected, expected]);
    }
  });
});

describe("linkifiers, kept compiled by each instance", () => {
  it("a linkifier added, changed or removed applies to the next render on both instances", async () => {
    const render = async () => (await sys.call(messaging.renderMessage, { content: "see #12" }, bob)).rendered;
    // both instances load the organization's (empty) list
    for (let i = 0; i < ROUNDS; i++) expect(await render()).toBe("<p>see #12</p>");
    const pattern = "#(?P<id>[0-9]+)";
    const { id } = await sys.call(
      realmConfig.createLinkifier,
      { pattern, url_template: "https://one.example.com/{id}" },
      sys.owner,
    );
    for (let i = 0; i < ROUNDS; i++)
      expect(await render()).toBe('<p>see <a href="https://one.example.com/12">#12</a></p>');
    await sys.call(
      realmConfig.updateLinkifier,
      { filter_id: id, pattern, url_template: "https://two.example.com/{id}" },
      sys.owner,
    );
    for (let i = 0; i < ROUNDS; i++)
      expect(await render()).toBe('<p>see <a href="https://two.example.com/12">#12</a></p>');
    await sys.call(realmConfig.deleteLinkifier, { filter_id: id }, sys.owner);
    for (let i = 0; i < ROUNDS; i++) expect(await render()).toBe("<p>see #12</p>");
  });
});

describe("a user's lists that register keeps in memory", () => {
  const lists = async (user: TestUser) =>
    (await sys.call(notifications.registerQueue, { fetch_event_types: ["drafts", "reminders"] }, user)) as unknown as {
      drafts: Array<{ id: number; content: string }>;
      reminders: Array<{ reminder_id: number }>;
    };
  const expectEverywhere = async (check: (state: Awaited<ReturnType<typeof lists>>) => void) => {
    for (let i = 0; i < ROUNDS; i++) check(await lists(alice));
  };

  it("drafts and reminders created, edited or deleted through either instance show in register on both", async () => {
    await expectEverywhere((s) => expect(s.drafts).toEqual([]));
    const draft = { type: "" as const, to: [], topic: "", content: "first" };
    const [id] = (await sys.call(messaging.createDrafts, { drafts: [draft] }, alice)).ids;
    await expectEverywhere((s) => expect(s.drafts.map((d) => [d.id, d.content])).toEqual([[id, "first"]]));
    await sys.call(messaging.editDraft, { draft_id: id!, draft: { ...draft, content: "second" } }, alice);
    await expectEverywhere((s) => expect(s.drafts.map((d) => [d.id, d.content])).toEqual([[id, "second"]]));
    await sys.call(messaging.deleteDraft, { draft_id: id! }, alice);
    await expectEverywhere((s) => expect(s.drafts).toEqual([]));

    const message = (
      await sys.call(messaging.sendMessage, { type: "stream", to: "design", topic: "t", content: "hi" }, bob)
    ).id;
    const at = Math.floor(Date.now() / 1000) + 86_400;
    const { reminder_id } = await sys.call(
      messaging.createReminder,
      { message_id: message, scheduled_delivery_timestamp: at },
      alice,
    );
    await expectEverywhere((s) => expect(s.reminders.map((r) => r.reminder_id)).toEqual([reminder_id]));
    await sys.call(messaging.deleteReminder, { reminder_id }, alice);
    await expectEverywhere((s) => expect(s.reminders).toEqual([]));
  });
});
