import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList } from "../common";

/** Zulip's settings.MAX_REMINDER_NOTE_LENGTH. */
export const MAX_REMINDER_NOTE_LENGTH = 1000;

/**
 * Zulip's ScheduledMessage.to_reminder_dict: a reminder is a direct message
 * to the user themselves, sent by Notification Bot at its time.
 */
export const reminderSchema = z.strictObject({
  reminder_id: int,
  to: intList,
  type: z.literal("private"),
  content: z.string(),
  rendered_content: z.string(),
  scheduled_delivery_timestamp: int,
  failed: z.boolean(),
  reminder_target_message_id: int,
});
export type Reminder = z.infer<typeof reminderSchema>;

/** POST /reminders (Zulip's create_reminders_message_backend, FL 381; `note` FL 415). */
export const createReminder = defineContract({
  subject: "messaging.reminders.create",
  http: { method: "POST", path: "/reminders", auth: "user" },
  params: z.object({ message_id: int, scheduled_delivery_timestamp: int, note: z.string().optional() }),
  reply: z.strictObject({ reminder_id: int }),
});

/** GET /reminders (FL 399): the caller's undelivered reminders, soonest first. */
export const getReminders = defineContract({
  subject: "messaging.reminders.list",
  http: { method: "GET", path: "/reminders", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ reminders: z.array(reminderSchema) }),
});

/** DELETE /reminders/{reminder_id} (Zulip's delete_reminder, FL 399). */
export const deleteReminder = defineContract({
  subject: "messaging.reminders.delete",
  http: { method: "DELETE", path: "/reminders/{reminder_id}", auth: "user" },
  params: z.object({ reminder_id: int.nonnegative() }),
  reply: z.strictObject({}),
});
