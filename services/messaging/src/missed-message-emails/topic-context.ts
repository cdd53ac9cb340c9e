import type { CallContext, UserGroupMemberships, notifications } from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import { canSeeMessage } from "../messages/message-access";
import type { MessageRepository } from "../messages/message.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import type { ReceiverCache } from "../user-messages/receiver-cache";

type MissedMessageSnapshot = notifications.MissedMessageSnapshot;

/** Zulip's get_context_for_message: at most this many earlier messages of the topic... */
const CONTEXT_MESSAGES = 10;
/** ...sent less than this long before the message. */
const CONTEXT_WINDOW_SECONDS = 15 * 60;

export interface TopicContextDeps {
  messages: MessageRepository;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  users: UserDirectory;
  receivers: ReceiverCache;
}

/**
 * The messages that lead up to a mention in a missed-message email, as
 * Zulip's handle_missedmessage_emails adds them: get_context_for_message (the
 * topic's messages before it, within its window and count), less those the
 * user may not see (bulk_access_messages), oldest first, with their senders'
 * names as the email shows them now.
 */
export async function topicContextOf(
  deps: TopicContextDeps,
  realmId: number,
  userId: number,
  message: MissedMessageSnapshot,
  ctx: CallContext,
): Promise<MissedMessageSnapshot[]> {
  if (message.type !== "stream" || message.channelId === undefined) return [];
  const topic = message.topic ?? "";
  // Message ids follow send time, so the newest few before the message, less those before
  // the window, are the newest within the window that Zulip's query selects.
  const earlier = (
    await deps.messages.topicMessagesBefore(
      realmId,
      message.channelId,
      topic.toLowerCase(),
      message.id,
      CONTEXT_MESSAGES,
    )
  ).filter((m) => m.timestamp > message.dateSent - CONTEXT_WINDOW_SECONDS);
  if (!earlier.length) return [];
  const users = await deps.users.byIds(ctx, realmId, [userId, ...earlier.map((m) => m.senderId)]);
  const user = users.get(userId);
  if (!user) return [];
  // all from one channel: the messages the user did not receive are readable alike, or not at all
  const received = await Promise.all(earlier.map((m) => deps.receivers.received(realmId, m, userId)));
  const notReceived = earlier.find((_, i) => !received[i]);
  const historyReadable =
    notReceived !== undefined && (await canSeeMessage(deps, realmId, { userId, role: user.role }, notReceived, ctx));
  const visible = earlier.filter((_, i) => historyReadable || received[i]);
  return visible.reverse().map((m) => ({
    id: m.messageId,
    senderId: m.senderId,
    senderFullName: users.get(m.senderId)?.full_name ?? "",
    senderEmail: users.get(m.senderId)?.email ?? "",
    type: "stream",
    channelId: message.channelId,
    channelName: message.channelName,
    topic: m.topic,
    content: m.content,
    renderedContent: m.renderedContent,
    dateSent: m.timestamp,
  }));
}
