import {
  requireUser,
  type HandlerContext,
  type UserGroupMemberships,
  messageUrl,
  silentMention,
  topicLink,
} from "@teamchat/shared";
import { canReadHistory } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { MessageRepository } from "./message.repository";
import { deleteMessages, type DeleteDeps } from "./delete-messages";
import { internalSendStreamMessage, type InternalStreamSendDeps } from "./internal-send";
import type { MessageDoc } from "./message.schema";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/** Zulip's settings.RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS: an undo this soon deletes the notice instead. */
export const RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS = 60;

export interface MovedMessages {
  /** the message the request named */
  target: MessageDoc;
  from: ChannelDoc;
  to: ChannelDoc;
  origTopic: string;
  topic: string;
  topicChanged: boolean;
  channelChanged: boolean;
  /** the topic change only adds (resolved) or removes (unresolved) the ✔ prefix */
  resolved: boolean;
  unresolved: boolean;
  contentChanged: boolean;
  propagateMode: "change_one" | "change_later" | "change_all";
  /** the messages moved (the target among them) */
  moved: MessageDoc[];
}

/** What the notices of a move use: Notification Bot's messages, and the deletion of an undone resolve notice. */
export type MoveNoticeDeps = InternalStreamSendDeps & DeleteDeps;

/** The messages of a channel's topic the actor may see (bulk_access_stream_messages_query), those in `except` left out. */
async function visibleInTopic(
  deps: {
    messages: MessageRepository;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
  },
  ctx: HandlerContext,
  channel: ChannelDoc,
  topic: string,
  except: ReadonlySet<number>,
): Promise<MessageDoc[]> {
  const { realm, actor } = requireUser(ctx);
  const [messages, subscribed, groups] = await Promise.all([
    deps.messages.ofTopic(realm.id, channel.streamId, topic.toLowerCase()),
    deps.subscriptions.isSubscribed(realm.id, actor.userId, channel.streamId),
    deps.userGroups.get(ctx),
  ]);
  const allVisible = canReadHistory(actor, channel, subscribed, groups);
  const kept = messages.filter((m) => !except.has(m.messageId));
  if (allVisible) return kept;
  const received = await Promise.all(kept.map((m) => deps.receivers.received(realm.id, m, actor.userId)));
  return kept.filter((_, i) => received[i]);
}

/**
 * Zulip's maybe_send_resolve_topic_notifications: "marked this topic as
 * resolved/unresolved" in the topic, unless the previous message there is
 * such a notice younger than the grace period, which is deleted instead (an
 * undone resolve leaves no trace). Returns the notice sent, if any.
 */
async function resolveNotice(
  deps: MoveNoticeDeps,
  ctx: HandlerContext,
  move: MovedMessages,
): Promise<MessageDoc | null> {
  const { realm, actor } = requireUser(ctx);
  const last = await deps.messages.newestOfTopic(realm.id, move.to.streamId, move.topic.toLowerCase());
  const now = Math.floor(Date.now() / 1000);
  if (
    last?.messageType === "resolve_topic_notification" &&
    now - last.timestamp <= RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS
  ) {
    await deleteMessages(deps, ctx, realm.id, [last]);
    return null;
  }
  const user = silentMention({ full_name: actor.fullName, user_id: actor.userId });
  const text = move.resolved
    ? `${user} has marked this topic as resolved.`
    : `${user} has marked this topic as unresolved.`;
  // Zulip leaves it unread only for users whose resolved_topic_notice_auto_read_policy asks
  // (default: those following the topic); neither that setting nor following exists here yet.
  return internalSendStreamMessage(deps, ctx, move.to, move.topic, text, {
    readBy: [actor.userId],
    unreadOnly: new Set(),
    messageType: "resolve_topic_notification",
  });
}

/**
 * What Notification Bot says about a move (Zulip's do_update_message, after
 * the move): the resolve notice, then the breadcrumbs of
 * send_message_moved_breadcrumbs in the new topic (unless the move only
 * resolved or unresolved it) and in the old one, as asked by
 * send_notification_to_new_thread / _old_thread. "The whole topic" is judged
 * by what the mover can see. All are read for the mover.
 */
export async function sendMoveNotices(
  deps: MoveNoticeDeps,
  ctx: HandlerContext,
  move: MovedMessages,
  notify: { oldThread: boolean; newThread: boolean },
): Promise<void> {
  const { realm, actor } = requireUser(ctx);
  const movedIds = new Set(move.moved.map((m) => m.messageId));
  const count = move.moved.length;
  const movedAllVisible =
    move.propagateMode === "change_all" ||
    (await visibleInTopic(deps, ctx, move.from, move.origTopic, movedIds)).length === 0;

  const notice =
    move.topicChanged && !move.contentChanged && !move.channelChanged && (move.resolved || move.unresolved)
      ? await resolveNotice(deps, ctx, move)
      : null;

  const user = silentMention({ full_name: actor.fullName, user_id: actor.userId });
  const markRead = { readBy: [actor.userId] };
  if (notify.newThread && (move.channelChanged || (move.topicChanged && !move.resolved && !move.unresolved))) {
    const except = new Set([...movedIds, ...(notice ? [notice.messageId] : [])]);
    const preexisting = await visibleInTopic(deps, ctx, move.to, move.topic, except);
    const oldLocation = topicLink(move.from, move.origTopic);
    const text =
      preexisting.length === 0 && movedAllVisible
        ? `This topic was moved here from ${oldLocation} by ${user}.`
        : count === 1
          ? `[A message](${messageUrl(realm.uri, move.to, move.topic, move.target.messageId)}) was moved here from ${oldLocation} by ${user}.`
          : `${count} messages were moved here from ${oldLocation} by ${user}.`;
    await internalSendStreamMessage(deps, ctx, move.to, move.topic, text, markRead);
  }
  if (notify.oldThread) {
    const newLocation = topicLink(move.to, move.topic);
    const text = movedAllVisible
      ? `This topic was moved to ${newLocation} by ${user}.`
      : count === 1
        ? `A message was moved from this topic to ${newLocation} by ${user}.`
        : `${count} messages were moved from this topic to ${newLocation} by ${user}.`;
    await internalSendStreamMessage(deps, ctx, move.from, move.origTopic, text, markRead);
  }
}
