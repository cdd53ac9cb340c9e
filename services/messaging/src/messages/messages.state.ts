import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";

/** Zulip looks at this many recent direct messages for recent_private_conversations. */
const RECENT_DIRECT_MESSAGES = 1000;

/** register's max_message_id, starred_messages and recent_private_conversations. */
export const messagesState = (deps: Deps<"messages" | "userMessages">): StateProvider[] => [
  provideState(messaging.maxMessageIdState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { max_message_id: await deps.messages.latestReceivedId(realm.id, actor.userId) };
  }),
  provideState(messaging.starredMessagesState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const starred = await deps.userMessages.idsWithFlag(realm.id, actor.userId, "starred");
    return { starred_messages: starred.sort((a, b) => a - b) };
  }),
  provideState(messaging.recentPrivateConversationsState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const recent = await deps.messages.recentDirect(realm.id, actor.userId, RECENT_DIRECT_MESSAGES);
    const byConversation = new Map<number, { max_message_id: number; user_ids: number[] }>();
    for (const msg of recent) {
      if (byConversation.has(msg.recipientId)) continue;
      byConversation.set(msg.recipientId, {
        max_message_id: msg.messageId,
        user_ids: msg.receivers.filter((id) => id !== actor.userId),
      });
    }
    return { recent_private_conversations: [...byConversation.values()] };
  }),
];
