import {
  messaging,
  messagingEvents,
  provideState,
  requireUser,
  userKey,
  type EventKeyedCache,
  type EventPublisher,
  type StateProvider,
} from "@teamchat/shared";
import { toReminder, type ScheduledMessageRepository } from "../scheduled-messages/scheduled-message.repository";
import type { ScheduledMessageDoc } from "../scheduled-messages/scheduled-message.schema";

/** Zulip's reminders events (do_schedule_messages for REMIND, notify_remove_reminder), to the reminder's owner. */
export function publishReminders(
  deps: { events: EventPublisher<"messaging"> },
  requestId: string | undefined,
  m: Pick<ScheduledMessageDoc, "realmId" | "senderId">,
  change: { op: "add"; reminders: ScheduledMessageDoc[] } | { op: "remove"; reminderId: number },
): void {
  const event =
    change.op === "add"
      ? { type: "reminders" as const, op: "add" as const, reminders: change.reminders.map(toReminder) }
      : { type: "reminders" as const, op: "remove" as const, reminder_id: change.reminderId };
  deps.events.publish(
    messagingEvents.remindersChanged,
    { realmId: m.realmId, userIds: [m.senderId], event },
    requestId,
  );
}

/** register's reminders of each user, kept by user key */
export type ReminderLists = EventKeyedCache<messaging.Reminder[], typeof messagingEvents.remindersChanged.payload>;

/**
 * register's reminders: the caller's undelivered ones (failed included),
 * soonest first, from memory (every register reads them). Each change
 * publishes the reminders event that drops them (a delivery included); a
 * failure, which Zulip tells no client of, publishes user_lists_changed.
 */
export const remindersState = (deps: {
  scheduledMessages: ScheduledMessageRepository;
  /** each user's list, dropped on the reminders events of every change and on user_lists_changed */
  reminderLists: ReminderLists;
}): StateProvider[] => [
  provideState(messaging.remindersState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const load = async () =>
      (await deps.scheduledMessages.undeliveredOf(realm.id, actor.userId, "remind")).map(toReminder);
    return { reminders: await deps.reminderLists.get(userKey(realm.id, actor.userId), load) };
  }),
];
