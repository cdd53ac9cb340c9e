import {
  messagingEvents,
  withTransaction,
  type HandlerContext,
  type Connection,
  type UserGroupMemberships,
  type EventPublisher,
} from "@teamchat/shared";
import { refreshFirstMessage } from "../channels/first-message";
import { conversationKey, type ConversationRepository } from "../conversations/conversation.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { MessageRepository } from "./message.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { ReceiverCache } from "../user-messages/receiver-cache";
import type { TopicRepository } from "../topics/topic.repository";
import type { UserDirectory } from "../users/user-directory";
import type { AttachmentRepository } from "../attachments/attachment.repository";
import { idSet, messageAudience } from "./message-audience";
import type { MessageDoc } from "./message.schema";

/** What deleting messages touches: the messages, everyone's rows, topics, conversations, channels, events. */
export interface DeleteDeps {
  db: Connection;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  messages: MessageRepository;
  userMessages: UserMessageRepository;
  receivers: ReceiverCache;
  topics: TopicRepository;
  conversations: ConversationRepository;
  users: UserDirectory;
  events: EventPublisher<"messaging">;
  attachments: AttachmentRepository;
}

/**
 * Zulip's do_delete_messages for messages of one topic or one conversation:
 * the messages and everyone's rows of them go, everyone who had them hears
 * delete_message, and the topic's newest message, the conversation's and the
 * channel's first message follow. Returns how many were deleted.
 */
export async function deleteMessages(
  deps: DeleteDeps,
  ctx: HandlerContext,
  realmId: number,
  messages: MessageDoc[],
): Promise<number> {
  const [first] = messages;
  if (!first) return 0;
  const ids = messages.map((m) => m.messageId);
  const received = (await Promise.all(messages.map((m) => deps.receivers.receiversOf(realmId, m)))).flat();
  const audience = await messageAudience(deps, realmId, first.streamId, received);
  // Zulip's do_delete_messages deletes the messages, their rows and their topics' notes in one transaction:
  // without one, a retry after a failure halfway would find no message left and leave the rows behind
  const deleted = await withTransaction(deps.db, async () => {
    const deleted = await deps.messages.delete(realmId, ids);
    if (!deleted) return 0;
    // rows of those who had them, and historical rows (a subscriber starred one seen in the channel's history)
    await deps.userMessages.remove(realmId, idSet([...received, ...audience]), ids);
    // Zulip's attachments list only messages that still exist
    await deps.attachments.unlinkMessages(realmId, ids);
    if (first.streamId === null) {
      const newest = await deps.messages.newestIdOfConversation(realmId, first.recipientId);
      await deps.conversations.setLastMessage(realmId, conversationKey(first.receivers), newest);
    } else {
      const newest = await deps.messages.newestOfTopic(realmId, first.streamId, first.topicKey);
      await deps.topics.refresh(realmId, first.streamId, first.topicKey, newest);
    }
    return deleted;
  });
  if (!deleted) return 0;
  deps.events.publish(
    messagingEvents.messagesDeleted,
    {
      realmId,
      userIds: audience,
      event:
        first.streamId === null
          ? { type: "delete_message", message_ids: ids, message_type: "private" }
          : {
              type: "delete_message",
              message_ids: ids,
              message_type: "stream",
              stream_id: first.streamId,
              topic: first.topic,
            },
    },
    ctx.requestId,
  );
  if (first.streamId !== null) await refreshFirstMessage(deps, ctx, realmId, first.streamId, { left: ids });
  return deleted;
}
