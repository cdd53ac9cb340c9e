/**
 * PATCH /messages/{message_id}'s rules (edit-policy.ts) and what an edit stores
 * (move-plan.ts), decided without servers, with Zulip's error messages.
 */
import {
  GroupMembership,
  Role,
  SYSTEM_GROUPS,
  ZulipError,
  type Actor,
  type ChannelGroupSetting,
  type GroupSettingValue,
  type realmConfig,
} from "@teamchat/shared";
import type { ChannelDoc } from "../src/channels/channel.schema";
import { checkEdit, decideMove, movedMessages, type EditRequest, type MoveDecision } from "../src/messages/edit-policy";
import type { MessageDoc } from "../src/messages/message.schema";
import { contentChange, planMove } from "../src/messages/move-plan";

const NOW = 1_800_000_000;
const HOUR = 3600;
const groups = new GroupMembership();
const nobody = SYSTEM_GROUPS["role:nobody"];
const everyone = SYSTEM_GROUPS["role:everyone"];
const moderators = SYSTEM_GROUPS["role:moderators"];

/** Zulip's defaults for what the policy reads; each test changes what it is about. */
const settings = (over: Partial<realmConfig.RealmSettings> = {}) =>
  ({
    allow_message_editing: true,
    message_content_edit_limit_seconds: 600,
    move_messages_within_stream_limit_seconds: 7 * 24 * HOUR,
    move_messages_between_streams_limit_seconds: 7 * 24 * HOUR,
    can_move_messages_between_topics_group: everyone,
    can_move_messages_between_channels_group: SYSTEM_GROUPS["role:members"],
    can_resolve_topics_group: everyone,
    realm_empty_topic_display_name: "general chat",
    topics_policy: "allow_empty_topic",
    max_message_length: 10000,
    max_topic_length: 60,
    ...over,
  }) as realmConfig.RealmSettings;

const user = (userId: number, role: Actor["role"] = Role.MEMBER): Actor => ({
  userId,
  realmId: 1,
  email: `user${userId}@example.com`,
  deliveryEmail: `user${userId}@example.com`,
  fullName: `User ${userId}`,
  role,
  isBot: false,
});
const sender = user(10);
const other = user(11);
const moderator = user(12, Role.MODERATOR);

const channel = (
  streamId: number,
  over: Partial<ChannelDoc> = {},
  groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingValue>> = {},
): ChannelDoc => ({
  realmId: 1,
  streamId,
  recipientId: 100 + streamId,
  name: `channel ${streamId}`,
  nameKey: `channel ${streamId}`,
  description: "",
  renderedDescription: "",
  inviteOnly: false,
  isWebPublic: false,
  historyPublicToSubscribers: true,
  messageRetentionDays: null,
  topicsPolicy: "inherit",
  folderId: null,
  isDefault: false,
  isArchived: false,
  dateCreated: 0,
  creatorId: null,
  firstMessageId: null,
  groupSettings,
  ...over,
});
const home = channel(1);
const elsewhere = channel(2);

const message = (over: Partial<MessageDoc> = {}): MessageDoc => ({
  realmId: 1,
  messageId: 500,
  senderId: sender.userId,
  type: "stream",
  recipientId: home.recipientId,
  streamId: home.streamId,
  topic: "plans",
  topicKey: "plans",
  receivers: [sender.userId, other.userId],
  content: "hello",
  renderedContent: "<p>hello</p>",
  timestamp: NOW - 60,
  client: "test",
  ...over,
});
const direct = message({ type: "private", streamId: null, topic: "", topicKey: "" });

const request = (over: Partial<EditRequest>): EditRequest => ({ propagate_mode: "change_one", ...over });

/** The message of the ZulipError `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ZulipError) return err.msg;
    throw err;
  }
  throw new Error("not refused");
}

describe("content edits (validate_user_can_edit_message)", () => {
  it("are refused when the organization turned editing off", () => {
    expect(
      refusal(() =>
        checkEdit(settings({ allow_message_editing: false }), sender, message(), request({ content: "x" }), NOW),
      ),
    ).toBe("Your organization has turned off message editing");
  });

  it("are the sender's only", () => {
    expect(refusal(() => checkEdit(settings(), other, message(), request({ content: "x" }), NOW))).toBe(
      "You don't have permission to edit this message",
    );
  });

  it("are refused past the organization's limit and its 20 s grace", () => {
    const old = message({ timestamp: NOW - 600 - 21 });
    expect(refusal(() => checkEdit(settings(), sender, old, request({ content: "x" }), NOW))).toBe(
      "The time limit for editing this message has passed",
    );
  });

  it("are allowed within the 20 s grace past the limit", () => {
    const late = message({ timestamp: NOW - 600 - 20 });
    expect(checkEdit(settings(), sender, late, request({ content: "x" }), NOW).content).toBe("x");
  });

  it("have no time limit when the organization sets none", () => {
    const ancient = message({ timestamp: 0 });
    const unlimited = settings({ message_content_edit_limit_seconds: null });
    expect(checkEdit(unlimited, sender, ancient, request({ content: "x" }), NOW).content).toBe("x");
  });

  it("store empty content as (deleted)", () => {
    expect(checkEdit(settings(), sender, message(), request({ content: "  \n" }), NOW).content).toBe("(deleted)");
  });

  it("are checked before the request's shape", () => {
    expect(refusal(() => checkEdit(settings(), other, direct, request({ content: "x", topic: "t" }), NOW))).toBe(
      "You don't have permission to edit this message",
    );
  });
});

describe("the request's shape (validate_message_edit_payload)", () => {
  it("must change something: the current topic is no change", () => {
    expect(refusal(() => checkEdit(settings(), sender, message(), request({ topic: " plans " }), NOW))).toBe(
      "Nothing to change",
    );
  });

  it("takes subject as the topic's old name", () => {
    expect(checkEdit(settings(), sender, message(), request({ subject: "news" }), NOW).requestedTopic).toBe("news");
  });

  it("reads the empty topic's display name as the empty topic", () => {
    expect(checkEdit(settings(), sender, message(), request({ topic: "general chat" }), NOW).requestedTopic).toBe("");
  });

  it("moves no direct message to a channel", () => {
    expect(refusal(() => checkEdit(settings(), sender, direct, request({ stream_id: 2 }), NOW))).toBe(
      "Direct messages cannot be moved to channels.",
    );
  });

  it("gives no direct message a topic", () => {
    expect(refusal(() => checkEdit(settings(), sender, direct, request({ topic: "t" }), NOW))).toBe(
      "Direct messages cannot have topics.",
    );
  });

  it("takes propagate_mode only with a topic or channel change", () => {
    expect(
      refusal(() =>
        checkEdit(settings(), sender, message(), request({ content: "x", propagate_mode: "change_all" }), NOW),
      ),
    ).toBe("Invalid propagate_mode without topic edit");
  });

  it.each(["✔", "✔ (no topic)"])("does not resolve general chat (topic %j)", (topic) => {
    expect(refusal(() => checkEdit(settings(), sender, message(), request({ topic }), NOW))).toBe(
      "General chat cannot be marked as resolved",
    );
  });

  it("does not change content and channel together", () => {
    expect(refusal(() => checkEdit(settings(), sender, message(), request({ content: "x", stream_id: 2 }), NOW))).toBe(
      "Cannot change message content while changing channel",
    );
  });
});

describe("moves within a channel (check_update_message)", () => {
  const move = (
    actor: Actor,
    requested: string | undefined,
    over: { settings?: Partial<realmConfig.RealmSettings>; from?: ChannelDoc; message?: MessageDoc } = {},
  ) =>
    decideMove(
      settings(over.settings),
      actor,
      groups,
      over.message ?? message(),
      over.from ?? home,
      over.from ?? home,
      requested,
      NOW,
    );

  it("need the organization's or the channel's permission to move between topics", () => {
    expect(refusal(() => move(other, "news", { settings: { can_move_messages_between_topics_group: nobody } }))).toBe(
      "You don't have permission to edit this message",
    );
  });

  it("are allowed by the channel's can_move_messages_within_channel_group", () => {
    const open = channel(1, {}, { can_move_messages_within_channel_group: everyone });
    expect(
      move(other, "news", { settings: { can_move_messages_between_topics_group: nobody }, from: open }).topic,
    ).toBe("news");
  });

  it("are allowed to the channel's administrators", () => {
    const administered = channel(
      1,
      {},
      { can_administer_channel_group: { direct_members: [11], direct_subgroups: [] } },
    );
    expect(
      move(other, "news", { settings: { can_move_messages_between_topics_group: nobody }, from: administered })
        .topicChanged,
    ).toBe(true);
  });

  it("are refused past the topic-move time limit", () => {
    const old = message({ timestamp: NOW - 7 * 24 * HOUR - 21 });
    expect(refusal(() => move(other, "news", { message: old }))).toBe(
      "The time limit for editing this message's topic has passed.",
    );
  });

  it("have no time limit for moderators", () => {
    const old = message({ timestamp: NOW - 7 * 24 * HOUR - 21 });
    expect(move(moderator, "news", { message: old }).topic).toBe("news");
  });

  it("resolve a topic with can_resolve_topics_group, not the move permission", () => {
    const decision = move(other, "✔ plans", { settings: { can_move_messages_between_topics_group: nobody } });
    expect(decision.resolveToggle).toBe(true);
  });

  it("refuse resolving without can_resolve_topics_group", () => {
    expect(refusal(() => move(other, "✔ plans", { settings: { can_resolve_topics_group: moderators } }))).toBe(
      "You don't have permission to resolve topics in this channel.",
    );
  });

  it("count removing the ✔ prefix as unresolving, not moving", () => {
    const resolved = message({ topic: "✔ plans", topicKey: "✔ plans" });
    expect(
      move(other, "plans", { message: resolved, settings: { can_move_messages_between_topics_group: nobody } })
        .resolveToggle,
    ).toBe(true);
  });

  it("count another topic with the ✔ prefix as a move", () => {
    expect(move(other, "✔ other plans").resolveToggle).toBe(false);
  });

  it("follow the channel's topics policy for the new topic", () => {
    const noGeneralChat = channel(1, { topicsPolicy: "disable_empty_topic" });
    expect(refusal(() => move(other, "", { from: noGeneralChat }))).toBe(
      "Sending messages to the general chat is not allowed in this channel.",
    );
  });

  it("refuse a content edit in a topic the channel no longer allows", () => {
    const generalChatOnly = channel(1, { topicsPolicy: "empty_topic_only" });
    expect(refusal(() => move(sender, undefined, { from: generalChatOnly }))).toBe(
      "Only the general chat topic is allowed in this channel.",
    );
  });

  it("truncate the new topic to the organization's length", () => {
    expect(move(other, "x".repeat(70)).topic).toBe(`${"x".repeat(57)}...`);
  });
});

describe("moves to another channel (check_update_message)", () => {
  const move = (
    actor: Actor,
    over: {
      settings?: Partial<realmConfig.RealmSettings>;
      from?: ChannelDoc;
      to?: ChannelDoc;
      message?: MessageDoc;
    } = {},
  ) =>
    decideMove(
      settings(over.settings),
      actor,
      groups,
      over.message ?? message(),
      over.from ?? home,
      over.to ?? elsewhere,
      undefined,
      NOW,
    );

  it("need the organization's or the channel's permission to move out of it", () => {
    expect(refusal(() => move(other, { settings: { can_move_messages_between_channels_group: nobody } }))).toBe(
      "You don't have permission to move this message",
    );
  });

  it("are allowed by the channel's can_move_messages_out_of_channel_group", () => {
    const open = channel(1, {}, { can_move_messages_out_of_channel_group: everyone });
    expect(
      move(other, { settings: { can_move_messages_between_channels_group: nobody }, from: open }).channelChanged,
    ).toBe(true);
  });

  it("need the permission to post in the new channel", () => {
    const closed = channel(2, {}, { can_send_message_group: moderators });
    expect(refusal(() => move(other, { to: closed }))).toBe("You do not have permission to post in this channel.");
  });

  it("are refused past the channel-move time limit", () => {
    const old = message({ timestamp: NOW - 7 * 24 * HOUR - 21 });
    expect(refusal(() => move(other, { message: old }))).toBe(
      "The time limit for editing this message's channel has passed",
    );
  });

  it("keep the topic, checked against the new channel's topics policy", () => {
    const generalChatOnly = channel(2, { topicsPolicy: "empty_topic_only" });
    expect(refusal(() => move(other, { to: generalChatOnly }))).toBe(
      "Only the general chat topic is allowed in this channel.",
    );
  });
});

describe("the messages a move takes (propagate_mode)", () => {
  const topic = [
    message({ messageId: 498, timestamp: NOW - 3 * HOUR, receivers: [sender.userId] }),
    message({ messageId: 499, timestamp: NOW - 2 * HOUR }),
    message(),
    message({ messageId: 501, timestamp: NOW - 30 }),
  ];
  const ids = (messages: MessageDoc[]) => messages.map((m) => m.messageId);
  const topicMove = (over: Partial<MoveDecision> = {}): MoveDecision => ({
    from: home,
    to: home,
    topic: "news",
    topicChanged: true,
    channelChanged: false,
    resolveToggle: false,
    ...over,
  });
  const take = (
    propagateMode: EditRequest["propagate_mode"],
    over: {
      actor?: Actor;
      move?: MoveDecision;
      settings?: Partial<realmConfig.RealmSettings>;
      subscribed?: boolean;
    } = {},
  ) =>
    movedMessages(
      settings(over.settings),
      over.actor ?? other,
      groups,
      message(),
      over.move ?? topicMove(),
      propagateMode,
      { subscribed: over.subscribed ?? true, topicMessages: topic, intervals: [] },
      NOW,
    );

  it("change_one moves the message alone", () => {
    expect(ids(take("change_one"))).toEqual([500]);
  });

  it("change_later moves it and the later ones", () => {
    expect(ids(take("change_later"))).toEqual([500, 501]);
  });

  it("change_all moves the whole topic", () => {
    expect(ids(take("change_all"))).toEqual([498, 499, 500, 501]);
  });

  it("without the channel's history, moves only the messages the editor received", () => {
    const privateChannel = channel(1, { inviteOnly: true, historyPublicToSubscribers: false });
    expect(ids(take("change_all", { move: topicMove({ from: privateChannel, to: privateChannel }) }))).toEqual([
      499, 500, 501,
    ]);
  });

  it("change_all past the time limit says how many of the most recent may move", () => {
    const run = () => take("change_all", { settings: { move_messages_within_stream_limit_seconds: HOUR } });
    expect(refusal(run)).toBe("You only have permission to move the 2/4 most recent messages in this topic.");
  });

  it("change_all past the time limit names the first movable message and the counts", () => {
    let extra: unknown;
    try {
      take("change_all", { settings: { move_messages_within_stream_limit_seconds: HOUR } });
    } catch (err) {
      extra = err instanceof ZulipError && { code: err.code, ...err.extra };
    }
    expect(extra).toEqual({
      code: "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
      first_message_id_allowed_to_move: 500,
      total_messages_in_topic: 4,
      total_messages_allowed_to_move: 2,
    });
  });

  it("change_all applies the stricter limit of a topic and channel move", () => {
    const run = () =>
      take("change_all", {
        move: topicMove({ to: elsewhere, channelChanged: true }),
        settings: { move_messages_between_streams_limit_seconds: 30 },
      });
    expect(refusal(run)).toBe("You only have permission to move the 1/4 most recent messages in this topic.");
  });

  it("change_all has no time limit for moderators", () => {
    const limited = { move_messages_within_stream_limit_seconds: HOUR };
    expect(take("change_all", { actor: moderator, settings: limited })).toHaveLength(4);
  });

  it("change_all has no time limit for resolving a topic", () => {
    const limited = { move_messages_within_stream_limit_seconds: HOUR };
    expect(take("change_all", { move: topicMove({ resolveToggle: true }), settings: limited })).toHaveLength(4);
  });
});

describe("what an edit stores (do_update_message)", () => {
  const moved = [message(), message({ messageId: 501 })];
  const topicMove: MoveDecision = {
    from: home,
    to: elsewhere,
    topic: "News",
    topicChanged: true,
    channelChanged: true,
    resolveToggle: false,
  };

  it("a move records the old and new channel and topic in the edit history", () => {
    expect(planMove(other.userId, message(), topicMove, moved, NOW).entry).toEqual({
      user_id: other.userId,
      timestamp: NOW,
      prev_stream: home.streamId,
      stream: elsewhere.streamId,
      prev_topic: "plans",
      topic: "News",
    });
  });

  it("a move sets the new place and last_moved_timestamp on every moved message", () => {
    const plan = planMove(other.userId, message(), topicMove, moved, NOW);
    expect({ ids: plan.ids, set: plan.set }).toEqual({
      ids: [500, 501],
      set: {
        streamId: elsewhere.streamId,
        recipientId: elsewhere.recipientId,
        topic: "News",
        topicKey: "news",
        lastMovedTimestamp: NOW,
      },
    });
  });

  it("resolving a topic is no move to last_moved_timestamp", () => {
    const resolve: MoveDecision = {
      ...topicMove,
      to: home,
      channelChanged: false,
      topic: "✔ plans",
      resolveToggle: true,
    };
    expect(planMove(other.userId, message(), resolve, moved, NOW).set).not.toHaveProperty("lastMovedTimestamp");
  });

  it("a content edit keeps the previous content in the edited message's history", () => {
    const plan = planMove(sender.userId, message(), null, [message()], NOW);
    expect(contentChange(plan, message(), "bye", "<p>bye</p>", NOW)).toEqual({
      set: {
        content: "bye",
        renderedContent: "<p>bye</p>",
        hasLink: false,
        hasImage: false,
        hasAttachment: false,
        lastEditTimestamp: NOW,
      },
      entry: { user_id: sender.userId, timestamp: NOW, prev_content: "hello", prev_rendered_content: "<p>hello</p>" },
    });
  });
});
