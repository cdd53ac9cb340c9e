import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { SearchEngine } from "../search/search-engine";

/**
 * register's max_message_id, starred_messages and recent_private_conversations, from the user's personal state,
 * and the search's stop words.
 */
export const messagesState = (deps: { personal: PersonalIndex; search: SearchEngine }): StateProvider[] => [
  provideState(messaging.maxMessageIdState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { max_message_id: (await deps.personal.of(realm.id, actor.userId)).latestReceived };
  }),
  provideState(messaging.starredMessagesState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { starred_messages: (await deps.personal.of(realm.id, actor.userId)).withAnyFlag(["starred"]) };
  }),
  provideState(messaging.recentPrivateConversationsState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const recent = (await deps.personal.of(realm.id, actor.userId)).recentConversations();
    return {
      recent_private_conversations: recent.map((c) => ({
        max_message_id: c.lastMessageId,
        user_ids: c.userIds.filter((id) => id !== actor.userId),
      })),
    };
  }),
  provideState(messaging.stopWordsState, async () => ({ stop_words: [...deps.search.stopWords] })),
];
