/**
 * Notification Bot's messages (Zulip's internal_send_* from
 * settings.NOTIFICATION_BOT): the "channel events" message of a new channel,
 * "subscribed you" direct messages, the new-channel announcement, the resolve
 * notices and the move breadcrumbs of PATCH /messages/{id}; who gets them
 * unread, and how they look in GET /messages.
 */
import { messaging, notifications, type ParamsIn, channelLink, topicLink } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { backdateMessages, createChannel } from "./helpers";
import { newChannelsAnnouncement } from "../src/subscriptions/subscription-notices";
import type { ChannelDoc } from "../src/channels/channel.schema";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser;
let bot: { user_id: number; email: string; full_name: string };
let design: number, archive: number;
const BOT_EMAIL = "notification-bot@zulip.com";

beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  carol = await org.makeUser("Carol", 400, "Carol");
  const state = (await org.call(
    notifications.registerQueue,
    { fetch_event_types: ["realm_user"] },
    alice,
  )) as unknown as {
    cross_realm_bots: Array<{ user_id: number; email: string; full_name: string }>;
  };
  bot = state.cross_realm_bots.find((b) => b.email === "notification-bot@zulip.com")!;
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId]);
  archive = await createChannel(org, alice, "archive", [alice.userId, bob.userId]);
});
afterAll(() => org?.stop());

const alices = () => `@_**Alice|${alice.userId}**`;
const send = async (user: Credentials, params: ParamsIn<typeof messaging.sendMessage>) =>
  (await org.call(messaging.sendMessage, params, user)).id;
const toDesign = (topic: string, content: string) => send(alice, { type: "stream", to: "design", topic, content });
const edit = (params: ParamsIn<typeof messaging.updateMessage>) => org.call(messaging.updateMessage, params, alice);
/** A topic's messages as `user` sees them, oldest first, in Markdown. */
const topicMessages = async (user: Credentials, channel: string, topic: string) =>
  (
    await org.call(
      messaging.getMessages,
      {
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        apply_markdown: false,
        narrow: [
          { operator: "channel", operand: channel },
          { operator: "topic", operand: topic },
        ],
      },
      user,
    )
  ).messages;
/** Notification Bot's direct messages to `user`, oldest first, in Markdown. */
const botDirectMessages = async (user: Credentials) =>
  (
    await org.call(
      messaging.getMessages,
      {
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        apply_markdown: false,
        narrow: [{ operator: "dm", operand: [bot.user_id] }],
      },
      user,
    )
  ).messages;
/** The one message Notification Bot posted last in a topic: its content and each user's flags. */
const lastNotice = async (channel: string, topic: string) => {
  const [forAlice, forBob] = await Promise.all([alice, bob].map((u) => topicMessages(u, channel, topic)));
  const mine = forAlice.at(-1)!;
  return { message: mine, aliceFlags: mine.flags, bobFlags: forBob.find((m) => m.id === mine.id)?.flags };
};

describe("how Notification Bot's messages look", () => {
  it("the sender is the bot of cross_realm_bots, of Zulip's internal realm, client Internal", async () => {
    const [opening] = await topicMessages(bob, "design", "channel events");
    expect(opening).toMatchObject({
      sender_id: bot.user_id,
      sender_email: BOT_EMAIL,
      sender_full_name: "Notification Bot",
      sender_realm_str: "zulipinternal",
      client: "Internal",
      type: "stream",
      display_recipient: "design",
      stream_id: design,
      subject: "channel events",
    });
    expect(bot).toMatchObject({ email: BOT_EMAIL, full_name: "Notification Bot" });
  });
});

describe("new channels", () => {
  it("open with a 'channel events' message naming their policy, creator and description: read for the creator only", async () => {
    const reply = await org.call(
      messaging.subscribe,
      {
        subscriptions: [{ name: "ideas", description: "Ideas go here" }],
        principals: [alice.userId, bob.userId],
      },
      alice,
    );
    expect(reply).toEqual({
      result: "success",
      msg: "",
      subscribed: { [alice.userId]: ["ideas"], [bob.userId]: ["ideas"] },
      already_subscribed: {},
      new_subscription_messages_sent: true,
    });
    const { message, aliceFlags, bobFlags } = await lastNotice("ideas", "channel events");
    expect(message.content).toBe(
      `**Public** channel created by ${alices()}. **Description:**\n\`\`\`\` quote\nIdeas go here\n\`\`\`\``,
    );
    expect(message.sender_id).toBe(bot.user_id);
    const [rendered] = (
      await org.call(
        messaging.getMessages,
        { anchor: message.id, num_before: 0, num_after: 0, narrow: [{ operator: "channel", operand: "ideas" }] },
        bob,
      )
    ).messages;
    // the description in Zulip's quote block
    expect(rendered!.content).toBe(
      `<p><strong>Public</strong> channel created by <span class="user-mention silent" data-user-id="${alice.userId}">Alice</span>. <strong>Description:</strong></p>\n<blockquote>\n<p>Ideas go here</p>\n</blockquote>`,
    );
    expect(aliceFlags).toEqual(["read"]);
    expect(bobFlags).toEqual([]);
    // Bob was subscribed to a channel being created: no "subscribed you" message for that
    expect(await botDirectMessages(bob)).toEqual([]);
  });

  it("name Zulip's policies: private with protected or shared history, '*No description.*' when there is none", async () => {
    await createChannel(org, alice, "hush", [alice.userId], { invite_only: true });
    await createChannel(org, alice, "shared", [alice.userId], {
      invite_only: true,
      history_public_to_subscribers: true,
    });
    expect((await topicMessages(alice, "hush", "channel events")).map((m) => m.content)).toEqual([
      `**Private, protected history** channel created by ${alices()}. **Description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``,
    ]);
    expect((await topicMessages(alice, "shared", "channel events")).map((m) => m.content)).toEqual([
      `**Private, shared history** channel created by ${alices()}. **Description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``,
    ]);
  });

  it("are announced only where the organization has a new-channel announcement channel: none by default (-1)", async () => {
    const state = (await org.call(notifications.registerQueue, { fetch_event_types: ["realm"] }, alice)) as unknown as {
      realm_new_stream_announcements_stream_id: number;
    };
    expect(state.realm_new_stream_announcements_stream_id).toBe(-1);
    const before = await channelMessageCount();
    await org.call(messaging.subscribe, { subscriptions: [{ name: "announced" }], announce: true }, alice);
    // only the new channel's own "channel events" message
    expect(await channelMessageCount()).toBe(before + 1);
    expect((await topicMessages(alice, "announced", "channel events")).length).toBe(1);
  });

  it("the announcement's text is Zulip's, with channel links that survive special characters", () => {
    const channel = (streamId: number, name: string) => ({ streamId, name }) as ChannelDoc;
    const actor = { full_name: "Alice", user_id: 7 };
    expect(newChannelsAnnouncement(actor, [channel(3, "news")])).toBe("@_**Alice|7** created a new channel #**news**.");
    expect(newChannelsAnnouncement(actor, [channel(3, "news"), channel(4, "a*b")])).toBe(
      "@_**Alice|7** created the following channels: #**news**, [#a&#42;b](#narrow/channel/4-a*b).",
    );
    expect(channelLink({ streamId: 5, name: "R&D team" })).toBe("[#R&amp;D team](#narrow/channel/5-R.26D-team)");
    expect(topicLink({ streamId: 5, name: "design" }, "v1.2 > v1")).toBe(
      "[#design > v1.2 &gt; v1](#narrow/channel/5-design/topic/v1.2E2.20.3E.20v1)",
    );
    expect(topicLink({ streamId: 5, name: "design" }, "")).toBe("#**design>**");
  });
});

async function channelMessageCount(): Promise<number> {
  const { messages } = await org.call(
    messaging.getMessages,
    { anchor: "newest", num_before: 1000, num_after: 0, narrow: [{ operator: "channels", operand: "public" }] },
    alice,
  );
  return messages.length;
}

describe("subscribing others", () => {
  it("sends each other human a direct message about existing channels, unread; never to oneself", async () => {
    const reply = await org.call(
      messaging.subscribe,
      { subscriptions: [{ name: "design" }], principals: [alice.userId, carol.userId] },
      alice,
    );
    expect(reply).toEqual({
      result: "success",
      msg: "",
      subscribed: { [carol.userId]: ["design"] },
      already_subscribed: { [alice.userId]: ["design"] },
      new_subscription_messages_sent: true,
    });
    const [dm] = await botDirectMessages(carol);
    expect(dm).toMatchObject({
      sender_id: bot.user_id,
      sender_realm_str: "zulipinternal",
      client: "Internal",
      type: "private",
      content: `${alices()} subscribed you to #**design**.`,
      flags: [],
    });
    expect((dm!.display_recipient as Array<{ id: number }>).map((r) => r.id).sort((a, b) => a - b)).toEqual(
      [bot.user_id, carol.userId].sort((a, b) => a - b),
    );
    expect(await botDirectMessages(alice)).toEqual([]);
  });

  it("lists several channels, sorted, in one message", async () => {
    await org.call(
      messaging.subscribe,
      { subscriptions: [{ name: "ideas" }, { name: "archive" }], principals: [carol.userId] },
      alice,
    );
    // stored as Zulip's normalize_body leaves it: without the last newline
    expect((await botDirectMessages(carol)).at(-1)!.content).toBe(
      `${alices()} subscribed you to the following channels:\n\n* #**archive**\n* #**ideas**`,
    );
  });

  it("sends nothing when asked not to (send_new_subscription_messages, FL 397), and the reply then says nothing", async () => {
    const dave = await org.makeUser("Dave", 400, "Dave");
    const reply = await org.call(
      messaging.subscribe,
      { subscriptions: [{ name: "design" }], principals: [dave.userId], send_new_subscription_messages: false },
      alice,
    );
    expect(reply).toEqual({
      result: "success",
      msg: "",
      subscribed: { [dave.userId]: ["design"] },
      already_subscribed: {},
    });
    expect(await botDirectMessages(dave)).toEqual([]);
  });
});

describe("moving messages", () => {
  it("a whole topic: 'moved here' in the new topic, 'moved to' in the old one when asked; read for the mover only", async () => {
    const id = await toDesign("old", "hello");
    await edit({ message_id: id, topic: "new", propagate_mode: "change_all", send_notification_to_old_thread: true });
    const here = await lastNotice("design", "new");
    expect(here.message.content).toBe(`This topic was moved here from #**design>old** by ${alices()}.`);
    expect(here.message.sender_id).toBe(bot.user_id);
    expect([here.aliceFlags, here.bobFlags]).toEqual([["read"], []]);
    const there = await lastNotice("design", "old");
    expect(there.message.content).toBe(`This topic was moved to #**design>new** by ${alices()}.`);
    expect([there.aliceFlags, there.bobFlags]).toEqual([["read"], []]);
  });

  it("one message of several: a link to it in the new topic; the old topic hears nothing by default", async () => {
    const first = await toDesign("pair", "one");
    const second = await toDesign("pair", "two");
    await edit({ message_id: second, topic: "single" });
    const here = await lastNotice("design", "single");
    expect(here.message.content).toBe(
      `[A message](${org.realm.uri}/#narrow/channel/${design}-design/topic/single/near/${second}) was moved here from #**design>pair** by ${alices()}.`,
    );
    expect((await topicMessages(alice, "design", "pair")).map((m) => m.id)).toEqual([first]);
  });

  it("some messages: counted in both topics; into a topic that has messages, never 'this topic'", async () => {
    const [a, b, c] = [await toDesign("many", "a"), await toDesign("many", "b"), await toDesign("many", "c")];
    await toDesign("target", "already here");
    await edit({
      message_id: b,
      topic: "target",
      propagate_mode: "change_later",
      send_notification_to_old_thread: true,
    });
    expect((await lastNotice("design", "target")).message.content).toBe(
      `2 messages were moved here from #**design>many** by ${alices()}.`,
    );
    const old = await topicMessages(alice, "design", "many");
    expect(old.map((m) => m.id)).toEqual([a, old[1]!.id]);
    expect(old[1]!.content).toBe(`2 messages were moved from this topic to #**design>target** by ${alices()}.`);
    expect(c).toBeGreaterThan(b);
  });

  it("to another channel: the breadcrumb goes to the new channel's topic", async () => {
    const id = await toDesign("travels", "bon voyage");
    await edit({ message_id: id, stream_id: archive, send_notification_to_old_thread: true });
    expect((await lastNotice("archive", "travels")).message.content).toBe(
      `This topic was moved here from #**design>travels** by ${alices()}.`,
    );
    expect((await lastNotice("design", "travels")).message.content).toBe(
      `This topic was moved to #**archive>travels** by ${alices()}.`,
    );
  });

  it("names with characters that break #** syntax get Zulip's escaped Markdown link", async () => {
    const id = await toDesign("a*b", "starry");
    await edit({ message_id: id, topic: "plain", propagate_mode: "change_all" });
    expect((await lastNotice("design", "plain")).message.content).toBe(
      `This topic was moved here from [#design > a&#42;b](#narrow/channel/${design}-design/topic/a*b) by ${alices()}.`,
    );
  });

  it("nothing when neither thread is to be told", async () => {
    const id = await toDesign("quiet", "shh");
    await edit({ message_id: id, topic: "still quiet", send_notification_to_new_thread: false });
    expect((await topicMessages(alice, "design", "still quiet")).map((m) => m.id)).toEqual([id]);
  });
});

describe("resolving topics", () => {
  it("tells the topic who resolved it (no move breadcrumb), read by everyone; an undo within 60 s deletes the notice", async () => {
    const id = await toDesign("bug", "it crashes");
    await edit({ message_id: id, topic: "✔ bug", propagate_mode: "change_all" });
    const resolved = await lastNotice("design", "✔ bug");
    expect(resolved.message).toMatchObject({
      sender_id: bot.user_id,
      content: `${alices()} has marked this topic as resolved.`,
    });
    // read for all: Zulip leaves it unread only for those following the topic (no one here)
    expect([resolved.aliceFlags, resolved.bobFlags]).toEqual([["read"], ["read"]]);
    expect((await topicMessages(alice, "design", "✔ bug")).length).toBe(2);

    // undone at once: the notice goes, none is added
    await edit({ message_id: id, topic: "bug", propagate_mode: "change_all" });
    expect((await topicMessages(alice, "design", "bug")).map((m) => m.id)).toEqual([id]);

    // resolved again, undone after the grace period: both notices stay
    await edit({ message_id: id, topic: "✔ bug", propagate_mode: "change_all" });
    const again = (await lastNotice("design", "✔ bug")).message;
    await backdateMessages(org, [again.id], 61);
    await edit({ message_id: id, topic: "bug", propagate_mode: "change_all" });
    expect((await topicMessages(alice, "design", "bug")).map((m) => m.content)).toEqual([
      "it crashes",
      `${alices()} has marked this topic as resolved.`,
      `${alices()} has marked this topic as unresolved.`,
    ]);
  });
});
