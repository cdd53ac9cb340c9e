import { ZulipError, requireUser, type Handler, type messaging, type EventPublisher } from "@teamchat/shared";
import { accessMessage } from "../messages/message-access";
import type { MessageRepository } from "../messages/message.repository";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { reminderContent } from "../reminders/reminder-content";
import { publishReminders } from "../reminders/reminders";
import { toReminder, type ScheduledMessageRepository } from "../scheduled-messages/scheduled-message.repository";
import { checkScheduledMessage, mustBeInFuture, type CheckScheduledDeps } from "../scheduled-messages/scheduling";

/** Zulip's access_reminder refusal (ResourceNotFoundError). */
const reminderNotFound = () => new ZulipError("BAD_REQUEST", "Reminder does not exist", 404);

/**
 * POST /reminders (Zulip's create_reminders_message_backend and
 * schedule_reminder_for_message): a reminder about a message the caller may
 * see, checked as a direct message to themselves and kept with the scheduled
 * messages, whose delivery sends it through Notification Bot.
 */
export const createReminderHandler =
  (
    deps: CheckScheduledDeps & {
      messages: MessageRepository;
      settings: RealmSettingsSource;
      scheduledMessages: ScheduledMessageRepository;
      events: EventPublisher<"messaging">;
    },
  ): Handler<typeof messaging.createReminder> =>
  async ({ message_id, scheduled_delivery_timestamp, note }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    mustBeInFuture(scheduled_delivery_timestamp);
    const message = await accessMessage(deps, realm.id, actor, message_id, ctx);
    const [channel, senders] = await Promise.all([
      message.streamId === null ? null : deps.channels.byId(realm.id, message.streamId),
      deps.users.byIds(ctx, realm.id, [message.senderId]),
    ]);
    const sender = { user_id: message.senderId, full_name: senders.get(message.senderId)?.full_name ?? "" };
    const content = reminderContent(realm.uri, message, channel, sender, note);
    const settings = await deps.settings.get(ctx);
    const toSelf = { type: "private" as const, to: [actor.userId] };
    const checked = await checkScheduledMessage(deps, ctx, realm, actor, settings, toSelf, content);
    const reminder = await deps.scheduledMessages.insert(realm.id, actor.userId, "remind", {
      ...checked,
      scheduledTimestamp: scheduled_delivery_timestamp,
      readBySender: false,
      client: ctx.client ?? "Internal",
      realm,
      reminderTargetMessageId: message_id,
    });
    publishReminders(deps, ctx.requestId, reminder, { op: "add", reminders: [reminder] });
    return { reminder_id: reminder.scheduledMessageId };
  };

/** GET /reminders: the caller's undelivered reminders, failed ones too, soonest first. */
export const getRemindersHandler =
  (deps: { scheduledMessages: ScheduledMessageRepository }): Handler<typeof messaging.getReminders> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return {
      reminders: (await deps.scheduledMessages.undeliveredOf(realm.id, actor.userId, "remind")).map(toReminder),
    };
  };

/** DELETE /reminders/{reminder_id} (Zulip's delete_reminder): only the caller's own; reminders remove. */
export const deleteReminderHandler =
  (deps: {
    scheduledMessages: ScheduledMessageRepository;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.deleteReminder> =>
  async ({ reminder_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const reminder = await deps.scheduledMessages.ofSender(realm.id, actor.userId, reminder_id, "remind");
    // one being sent at this moment is gone as far as the caller can tell
    if (!reminder || !(await deps.scheduledMessages.remove(realm.id, actor.userId, reminder_id))) {
      throw reminderNotFound();
    }
    publishReminders(deps, ctx.requestId, reminder, { op: "remove", reminderId: reminder_id });
    return {};
  };
