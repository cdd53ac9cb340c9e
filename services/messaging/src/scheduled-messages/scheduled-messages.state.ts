import {
  messaging,
  provideState,
  requireUser,
  userKey,
  type EventKeyedCache,
  type messagingEvents,
  type StateProvider,
} from "@teamchat/shared";
import { toScheduledMessage, type ScheduledMessageRepository } from "./scheduled-message.repository";

/** register's scheduled messages of each user, kept by user key */
export type ScheduledMessageLists = EventKeyedCache<
  messaging.ScheduledMessage[],
  typeof messagingEvents.scheduledMessagesChanged.payload
>;

/**
 * register's scheduled_messages: the caller's undelivered ones, soonest first,
 * from memory (every register reads them); each change, a delivery or a
 * failure included, publishes the scheduled_messages event that drops them,
 * but the failure of a deactivated sender's message, which Zulip tells no
 * client of, publishes user_lists_changed instead (they may be reactivated).
 */
export const scheduledMessagesState = (deps: {
  scheduledMessages: ScheduledMessageRepository;
  /** each user's list, dropped on the scheduled_messages events of every change and on user_lists_changed */
  scheduledLists: ScheduledMessageLists;
}): StateProvider[] => [
  provideState(messaging.scheduledMessagesState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const load = async () =>
      (await deps.scheduledMessages.undeliveredOf(realm.id, actor.userId, "send_later")).map(toScheduledMessage);
    return { scheduled_messages: await deps.scheduledLists.get(userKey(realm.id, actor.userId), load) };
  }),
];
