import { messagingEvents, type HandlerContext } from "@teamchat/shared";
import { refreshFirstMessage } from "../channels/first-message";
import { conversationKey } from "../conversations/conversation.repository";
import type { Deps } from "../deps";
import type { MessageDoc } from "./message.schema";

/** Sorted, without repeats. */
export const idSet = (ids: Iterable<number>): number[] => [...new Set(ids)].sort((a, b) => a - b);

/**
 * Who hears of changes to messages of one channel or conversation (Zulip's
 * event_recipient_ids_for_action_on_messages): those who received them and,
 * in a channel whose history subscribers may read, its subscribers.
 */
export async function messageAudience(
  deps: Deps<"channels" | "subscriptions">,
  realmId: number,
  streamId: number | null,
  received: number[],
): Promise<number[]> {
  if (streamId === null) return idSet(received);
  const [channel, subscribers] = await Promise.all([
    deps.channels.byId(realmId, streamId),
    deps.subscriptions.subscriberIds(realmId, streamId),
  ]);
  return idSet(channel?.historyPublicToSubscribers ? [...received, ...subscribers] : received);
}

/**
 * Zulip's do_delete_messages for messages of one topic or one conversation:
 * the messages and everyone's rows of them go, everyone who had them hears
 * delete_message, and the topic's newest message, the conversation's and the
 * channel's first message follow. Returns how many were deleted.
 */
export async function deleteMessages(
  deps: Deps<
    "channels" | "subscriptions" | "messages" | "userMessages" | "topics" | "conversations" | "users" | "events"
  >,
  ctx: HandlerContext,
  realmId: number,
  messages: MessageDoc[],
): Promise<number> {
  const [first] = messages;
  if (!first) return 0;
  const ids = messages.map((m) => m.messageId);
  const audience = await messageAudience(
    deps,
    realmId,
    first.streamId,
    messages.flatMap((m) => m.receivers),
  );
  const deleted = await deps.messages.delete(realmId, ids);
  if (!deleted) return 0;
  // rows of those who had them, and historical rows (a subscriber starred one seen in the channel's history)
  await deps.userMessages.remove(realmId, audience, ids);
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
  if (first.streamId === null) {
    const newest = await deps.messages.newestIdOfConversation(realmId, first.recipientId);
    await deps.conversations.setLastMessage(realmId, conversationKey(first.receivers), newest);
    return deleted;
  }
  const newest = await deps.messages.newestOfTopic(realmId, first.streamId, first.topicKey);
  await deps.topics.refresh(realmId, first.streamId, first.topicKey, newest);
  await refreshFirstMessage(deps, ctx, realmId, first.streamId);
  return deleted;
}
