import { messaging, type BusServer } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import { getNotificationFactsHandler } from "../handlers/get-notification-facts";
import { getUnreadMessageIdsHandler } from "../handlers/get-unread-message-ids";

/** What the notifications service asks of messaging: who muted what, and a user's unread messages. */
export function registerNotificationFactOperations(
  server: BusServer,
  {
    messages,
    userMessages,
    subscriptions,
    readStates,
    userTopics,
    mutedUsers,
  }: {
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    subscriptions: SubscriptionDirectory;
    readStates: ReadStateRepository;
    userTopics: UserTopicIndex;
    mutedUsers: MutedUserIndex;
  },
): void {
  server
    .handle(messaging.getNotificationFacts, getNotificationFactsHandler({ mutedUsers, subscriptions, userTopics }))
    .handle(messaging.getUnreadMessageIds, getUnreadMessageIdsHandler({ messages, userMessages, readStates }));
}
