import {
  Role,
  ZulipError,
  badRequest,
  messagingEvents,
  requireUser,
  withTransaction,
  type Actor,
  type ChannelGroupSetting,
  type GroupSettingValue,
  type Handler,
  type HandlerContext,
  type ParamsOf,
  type PayloadOf,
  type messaging,
  type realmConfig,
  type GroupMembership,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { updateAttachmentLinks, type LinkDeps } from "../attachments/attachment-links";
import { accessChannelById, canReadHistory } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import { groupSetting } from "../channels/channel-view";
import { refreshFirstMessage } from "../channels/first-message";
import { idSet, messageAudience } from "../messages/message-audience";
import { mentionFlags } from "../messages/mentions";
import { accessMessage } from "../messages/message-access";
import { checkTopicAllowed, normalizeContent, normalizeTopic } from "../messages/message-content";
import { sendMoveNotices, type MoveNoticeDeps } from "../messages/move-notices";
import type { MessageRepository } from "../messages/message.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { MessageDoc } from "../messages/message.schema";
import { topicLinks } from "../render/linkifiers";
import { renderMarkdown } from "../render/markdown";

type Params = ParamsOf<typeof messaging.updateMessage>;
type Settings = realmConfig.RealmSettings;
type UpdateMessageEvent = PayloadOf<typeof messagingEvents.messageUpdated>["event"];

type UpdateDeps = MoveNoticeDeps & LinkDeps;

/** Zulip allows edits and moves this long past a time limit (a client's countdown, network delays). */
const EDIT_LIMIT_BUFFER_SECONDS = 20;
/** Zulip's RESOLVED_TOPIC_PREFIX: a topic starting with it is resolved. */
const RESOLVED_TOPIC_PREFIX = "✔ ";

const pastLimit = (message: MessageDoc, limit: number | null, now: number): boolean =>
  limit !== null && now - message.timestamp > limit + EDIT_LIMIT_BUFFER_SECONDS;

const isModerator = (actor: Pick<Actor, "role">): boolean => actor.role <= Role.MODERATOR;

/** In the organization's group for a permission, the channel's, or among the channel's administrators. */
const permitted = (
  groups: GroupMembership,
  actor: Actor,
  realmGroup: GroupSettingValue,
  channel: ChannelDoc,
  channelSetting: ChannelGroupSetting,
) =>
  groups.includes(realmGroup, actor) ||
  groups.includes(groupSetting(channel, channelSetting), actor) ||
  groups.includes(groupSetting(channel, "can_administer_channel_group"), actor);

/** Zulip's validate_user_can_edit_message: only the sender edits content, within the organization's limit. */
function checkContentEdit(settings: Settings, actor: Actor, message: MessageDoc, now: number): void {
  if (!settings.allow_message_editing) throw badRequest("Your organization has turned off message editing");
  if (message.senderId !== actor.userId) throw badRequest("You don't have permission to edit this message");
  if (pastLimit(message, settings.message_content_edit_limit_seconds, now)) {
    throw badRequest("The time limit for editing this message has passed");
  }
}

/** The topic asked for, as Zulip compares it: trimmed, the empty-topic display name meaning ""; unset when unchanged. */
function requestedTopic(p: Params, settings: Settings, message: MessageDoc): string | undefined {
  const given = (p.topic ?? p.subject)?.trim();
  const topic = given === settings.realm_empty_topic_display_name ? "" : given;
  return topic === message.topic ? undefined : topic;
}

/** Zulip's validate_message_edit_payload: the request's shape, before any permission. */
function checkPayload(p: Params, topic: string | undefined, message: MessageDoc): void {
  if (topic === undefined && p.content === undefined && p.stream_id === undefined) {
    throw badRequest("Nothing to change");
  }
  if (message.type === "private") {
    if (p.stream_id !== undefined) throw badRequest("Direct messages cannot be moved to channels.");
    if (topic !== undefined) throw badRequest("Direct messages cannot have topics.");
  }
  if (p.propagate_mode !== "change_one" && topic === undefined && p.stream_id === undefined) {
    throw badRequest("Invalid propagate_mode without topic edit");
  }
  if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === `${RESOLVED_TOPIC_PREFIX}(no topic)`) {
    throw badRequest("General chat cannot be marked as resolved");
  }
  if (p.stream_id !== undefined && p.content !== undefined) {
    throw badRequest("Cannot change message content while changing channel");
  }
}

/** Zulip's topic_resolved / topic_unresolved: the same topic with the ✔ prefix added or removed. */
function isResolveToggle(from: string, requested: string, to: string): boolean {
  const resolved = (t: string) => t.startsWith(RESOLVED_TOPIC_PREFIX);
  if (resolved(to) && !resolved(from)) return requested.slice(RESOLVED_TOPIC_PREFIX.length) === from;
  return resolved(from) && !resolved(to) && from.replace(/^[✔ ]+/, "") === to;
}

/**
 * Zulip's check_time_limit_for_change_all_propagate_mode: moving a whole topic
 * needs every message of it within the time limits that apply, else the
 * reply says how many of the most recent ones may be moved.
 */
function checkWholeTopicMovable(
  settings: Settings,
  visible: MessageDoc[],
  topicChanged: boolean,
  channelChanged: boolean,
  now: number,
): void {
  const limits = [
    topicChanged ? settings.move_messages_within_stream_limit_seconds : null,
    channelChanged ? settings.move_messages_between_streams_limit_seconds : null,
  ].filter((l): l is number => l !== null);
  if (!limits.length) return;
  const movable = visible.filter((m) => !pastLimit(m, Math.min(...limits), now));
  if (movable.length === visible.length) return;
  throw new ZulipError(
    "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
    `You only have permission to move the ${movable.length}/${visible.length} most recent messages in this topic.`,
    400,
    {
      first_message_id_allowed_to_move: movable[0]?.messageId ?? null,
      total_messages_in_topic: visible.length,
      total_messages_allowed_to_move: movable.length,
    },
  );
}

/** What a move changes: the messages' channel and topic, and who loses or gains them. */
interface Move {
  from: ChannelDoc;
  to: ChannelDoc;
  topic: string;
  topicChanged: boolean;
  channelChanged: boolean;
  /** the topic change only resolves or unresolves the topic: not a move to Zulip's last_moved_timestamp */
  resolveToggle: boolean;
  messages: MessageDoc[];
}

/** Who a move to another channel takes the messages from and gives them to (receiverChange). */
interface ReceiverChange {
  losing: number[];
  gaining: number[];
  /** who may no longer see the messages at all, told they are deleted */
  losingAccess: number[];
}

/**
 * A move to another channel (Zulip's do_update_message): those subscribed to
 * the new channel keep their rows, the others lose them; if the new channel
 * does not share its history, each of its subscribers gets a read row. Those
 * who may no longer see the messages at all are everyone without a row in a
 * private channel, guests in a public one.
 */
async function receiverChange(
  deps: { subscriptions: SubscriptionDirectory; users: UserDirectory },
  ctx: HandlerContext,
  realmId: number,
  move: Move,
): Promise<ReceiverChange> {
  const [newSubscribers, oldSubscribers] = await Promise.all([
    deps.subscriptions.subscriberIds(realmId, move.to.streamId),
    deps.subscriptions.subscriberIds(realmId, move.from.streamId),
  ]);
  const staying = new Set(newSubscribers);
  const losing = idSet(move.messages.flatMap((m) => m.receivers)).filter((u) => !staying.has(u));
  const gaining = move.to.historyPublicToSubscribers ? [] : newSubscribers;
  const mayHaveSeen = idSet([...losing, ...oldSubscribers]).filter((u) => !staying.has(u));
  if (move.to.inviteOnly) return { losing, gaining, losingAccess: mayHaveSeen };
  const users = await deps.users.byIds(ctx, realmId, mayHaveSeen);
  return { losing, gaining, losingAccess: mayHaveSeen.filter((u) => users.get(u)?.role === Role.GUEST) };
}

/** Stores a receiverChange: the messages' receivers, and the rows lost and gained. */
async function changeReceivers(
  deps: { messages: MessageRepository; userMessages: UserMessageRepository },
  realmId: number,
  ids: number[],
  change: ReceiverChange,
) {
  await deps.messages.changeReceivers(realmId, ids, change.losing, change.gaining);
  await deps.userMessages.remove(realmId, change.losing, ids);
  if (change.gaining.length) await deps.userMessages.addRead(realmId, change.gaining, ids);
}

/**
 * PATCH /messages/{message_id} (Zulip's check_update_message): edits the
 * content (the sender, within the time limit; mentions re-rendered), moves the
 * message, the later ones or all of its topic to another topic or channel
 * (the organization's and the channel's move permissions and time limits), and
 * records each change in the messages' edit history. Everyone who has the
 * messages hears update_message with their flags; those who lose access by a
 * move hear delete_message. Notification Bot then posts Zulip's resolve
 * notice and move breadcrumbs (move-notices.ts).
 */
export const updateMessageHandler =
  (deps: UpdateDeps): Handler<typeof messaging.updateMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [settings, message] = await Promise.all([
      deps.settings.get(ctx),
      accessMessage(deps, realm.id, actor, p.message_id, ctx),
    ]);
    const now = Math.floor(Date.now() / 1000);
    if (p.content !== undefined) checkContentEdit(settings, actor, message, now);
    const requested = requestedTopic(p, settings, message);
    checkPayload(p, requested, message);

    const content =
      p.content === undefined
        ? undefined
        : normalizeContent(p.content.trimEnd() === "" ? "(deleted)" : p.content, settings);
    const move =
      message.streamId === null
        ? null
        : await planMove(deps, ctx, realm.id, actor, settings, p, message, requested, now);

    const entry: messaging.EditHistoryEntry = { user_id: actor.userId, timestamp: now };
    const moveEntry: messaging.EditHistoryEntry = move
      ? {
          ...entry,
          ...(move.channelChanged ? { prev_stream: move.from.streamId, stream: move.to.streamId } : {}),
          ...(move.topicChanged ? { prev_topic: message.topic, topic: move.topic } : {}),
        }
      : entry;
    const moveSet: Partial<MessageDoc> =
      move && (move.topicChanged || move.channelChanged)
        ? {
            streamId: move.to.streamId,
            recipientId: move.to.recipientId,
            topic: move.topic,
            topicKey: move.topic.toLowerCase(),
            ...(move.channelChanged || !move.resolveToggle ? { lastMovedTimestamp: now } : {}),
          }
        : {};
    const moved = move && (move.topicChanged || move.channelChanged) ? move.messages : [message];
    const movedIds = moved.map((m) => m.messageId);
    const renderedContent =
      content === undefined
        ? undefined
        : renderMarkdown(content, await deps.users.mentionTargets(ctx, realm.id), await deps.linkifiers.get(ctx));

    const topicsMoved = move !== null && (move.topicChanged || move.channelChanged);
    const mentions =
      content === undefined
        ? new Map<number, string[]>()
        : mentionFlags(content, [...(await deps.users.byIds(ctx, realm.id, message.receivers)).values()]);
    const receivers = move?.channelChanged ? await receiverChange(deps, ctx, realm.id, move) : undefined;
    // Zulip's do_update_message changes the messages, their rows and their topics in one transaction
    await withTransaction(deps.db, async () => {
      if (content !== undefined) {
        const { prev_stream, stream, prev_topic, topic, ...stamp } = moveEntry;
        await deps.messages.applyEdit(
          realm.id,
          [message.messageId],
          { ...moveSet, content, renderedContent, lastEditTimestamp: now },
          {
            ...stamp,
            prev_content: message.content,
            prev_rendered_content: message.renderedContent,
            ...(prev_stream === undefined ? {} : { prev_stream, stream }),
            ...(prev_topic === undefined ? {} : { prev_topic, topic }),
          },
        );
        const others = movedIds.filter((id) => id !== message.messageId);
        if (others.length) await deps.messages.applyEdit(realm.id, others, moveSet, moveEntry);
        await deps.userMessages.setMentionFlags(
          realm.id,
          message.messageId,
          new Map(message.receivers.map((u) => [u, mentions.get(u) ?? []])),
        );
      } else {
        await deps.messages.applyEdit(realm.id, movedIds, moveSet, moveEntry);
      }
      if (receivers) await changeReceivers(deps, realm.id, movedIds, receivers);
      if (topicsMoved) {
        for (const [channel, key] of [
          [move.from, message.topicKey],
          [move.to, move.topic.toLowerCase()],
        ] as const) {
          const newest = await deps.messages.newestOfTopic(realm.id, channel.streamId, key);
          await deps.topics.refresh(realm.id, channel.streamId, key, newest);
        }
      }
    });
    if (content !== undefined) await updateAttachmentLinks(deps, ctx, realm.id, actor, message, content);

    const losingAccess = receivers?.losingAccess ?? [];
    if (losingAccess.length) {
      deps.events.publish(
        messagingEvents.messagesDeleted,
        {
          realmId: realm.id,
          userIds: losingAccess,
          event: {
            type: "delete_message",
            message_ids: movedIds,
            message_type: "stream",
            stream_id: move!.from.streamId,
            topic: message.topic,
          },
        },
        ctx.requestId,
      );
    }

    // after the move: those who have the message now, and the old channel's readers of shared history
    const after = (await deps.messages.byId(realm.id, message.messageId)) ?? message;
    const lost = new Set(losingAccess);
    const audience = (await messageAudience(deps, realm.id, message.streamId, after.receivers)).filter(
      (u) => !lost.has(u),
    );
    const rowFlags = await deps.userMessages.flagsByUser(realm.id, message.messageId, after.receivers);
    const event: UpdateMessageEvent = {
      type: "update_message",
      user_id: actor.userId,
      edit_timestamp: now,
      message_id: message.messageId,
      message_ids: movedIds,
      rendering_only: false,
      ...(move ? { stream_name: move.from.name, stream_id: move.from.streamId } : {}),
      ...(move && (move.topicChanged || move.channelChanged)
        ? { propagate_mode: p.propagate_mode, orig_subject: message.topic }
        : {}),
      ...(move?.channelChanged ? { new_stream_id: move.to.streamId } : {}),
      ...(move?.topicChanged
        ? { subject: move.topic, topic_links: topicLinks(move.topic, await deps.linkifiers.get(ctx)) }
        : {}),
      ...(content !== undefined
        ? {
            orig_content: message.content,
            orig_rendered_content: message.renderedContent,
            content,
            rendered_content: renderedContent!,
            is_me_message: /^\/me\s/.test(content),
          }
        : {}),
    };
    deps.events.publish(
      messagingEvents.messageUpdated,
      {
        realmId: realm.id,
        userIds: audience,
        event,
        flags: Object.fromEntries(audience.map((u) => [u, rowFlags.get(u) ?? ["read"]])),
      },
      ctx.requestId,
    );

    if (topicsMoved) {
      if (move.channelChanged) {
        await refreshFirstMessage(deps, ctx, realm.id, move.from.streamId, { left: movedIds });
        await refreshFirstMessage(deps, ctx, realm.id, move.to.streamId, { entered: movedIds });
      }
      const resolved = move.resolveToggle && move.topic.startsWith(RESOLVED_TOPIC_PREFIX);
      await sendMoveNotices(
        deps,
        ctx,
        {
          target: message,
          from: move.from,
          to: move.to,
          origTopic: message.topic,
          topic: move.topic,
          topicChanged: move.topicChanged,
          channelChanged: move.channelChanged,
          resolved,
          unresolved: move.resolveToggle && !resolved,
          contentChanged: content !== undefined,
          propagateMode: p.propagate_mode,
          moved,
        },
        { oldThread: p.send_notification_to_old_thread, newThread: p.send_notification_to_new_thread },
      );
    }
    return { detached_uploads: [] };
  };

/**
 * A channel message's move, checked as Zulip's check_update_message does:
 * the target channel and topic policy, the permissions to resolve topics, to
 * move within and out of the channel, their time limits, and which messages
 * the propagate mode takes (those of the topic the mover can see).
 */
async function planMove(
  deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    messages: MessageRepository;
  },
  ctx: HandlerContext,
  realmId: number,
  actor: Actor,
  settings: Settings,
  p: Params,
  message: MessageDoc,
  requested: string | undefined,
  now: number,
): Promise<Move> {
  const [from, subscribed, groups] = await Promise.all([
    deps.channels.byId(realmId, message.streamId!),
    deps.subscriptions.isSubscribed(realmId, actor.userId, message.streamId!),
    deps.userGroups.get(ctx),
  ]);
  if (!from) throw badRequest("Invalid message(s)");
  const channelChanged = p.stream_id !== undefined && p.stream_id !== from.streamId;
  const to = channelChanged
    ? (await accessChannelById(deps, realmId, actor, p.stream_id!, ctx, "content")).channel
    : from;
  const topicChanged = requested !== undefined;
  const topic =
    topicChanged || channelChanged ? normalizeTopic(requested ?? message.topic, settings, to) : message.topic;
  // a content edit too, where the channel allows only the empty topic now (Zulip's build_message_edit_request)
  if (!topicChanged && !channelChanged) checkTopicAllowed(topic, settings, to, false);
  const resolveToggle = requested !== undefined && isResolveToggle(message.topic, requested, topic);
  const move: Move = { from, to, topic, topicChanged, channelChanged, resolveToggle, messages: [message] };

  if (resolveToggle) {
    if (!permitted(groups, actor, settings.can_resolve_topics_group, from, "can_resolve_topics_group")) {
      throw badRequest("You don't have permission to resolve topics in this channel.");
    }
  } else if (topicChanged) {
    if (
      !permitted(
        groups,
        actor,
        settings.can_move_messages_between_topics_group,
        from,
        "can_move_messages_within_channel_group",
      )
    ) {
      throw badRequest("You don't have permission to edit this message");
    }
    if (!isModerator(actor) && pastLimit(message, settings.move_messages_within_stream_limit_seconds, now)) {
      throw badRequest("The time limit for editing this message's topic has passed.");
    }
  }
  if (channelChanged) {
    if (
      !permitted(
        groups,
        actor,
        settings.can_move_messages_between_channels_group,
        from,
        "can_move_messages_out_of_channel_group",
      )
    ) {
      throw badRequest("You don't have permission to move this message");
    }
    if (!groups.includes(groupSetting(to, "can_send_message_group"), actor)) {
      throw badRequest("You do not have permission to post in this channel.");
    }
    if (!isModerator(actor) && pastLimit(message, settings.move_messages_between_streams_limit_seconds, now)) {
      throw badRequest("The time limit for editing this message's channel has passed");
    }
  }
  if ((topicChanged || channelChanged) && p.propagate_mode !== "change_one") {
    const topicMessages = await deps.messages.ofTopic(realmId, from.streamId, message.topicKey);
    const visible = canReadHistory(actor, from, subscribed, groups)
      ? topicMessages
      : topicMessages.filter((m) => m.receivers.includes(actor.userId));
    if (p.propagate_mode === "change_all" && !isModerator(actor) && !resolveToggle) {
      checkWholeTopicMovable(settings, visible, topicChanged, channelChanged, now);
    }
    move.messages =
      p.propagate_mode === "change_all" ? visible : visible.filter((m) => m.messageId >= message.messageId);
  }
  return move;
}
