import {
  messaging,
  messagingEvents,
  provideState,
  requireUser,
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

/** register's reminders: the caller's undelivered ones (failed included), soonest first. */
export const remindersState = (deps: { scheduledMessages: ScheduledMessageRepository }): StateProvider[] => [
  provideState(messaging.remindersState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return {
      reminders: (await deps.scheduledMessages.undeliveredOf(realm.id, actor.userId, "remind")).map(toReminder),
    };
  }),
];
