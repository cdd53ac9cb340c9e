import { z } from "zod";

/**
 * Why a user is notified of a message: Zulip's NotificationTriggers
 * (zerver/lib/push_notifications.py, zerver/lib/notification_data.py), which
 * its emails and push payloads both carry.
 */
export const missedMessageTrigger = z.enum([
  "private_message",
  "mentioned",
  "topic_wildcard_mentioned",
  "stream_wildcard_mentioned",
  "stream_push_notify",
  "stream_email_notify",
  "followed_topic_push_notify",
  "followed_topic_email_notify",
  "topic_wildcard_mentioned_in_followed_topic",
  "stream_wildcard_mentioned_in_followed_topic",
]);
export type MissedMessageTrigger = z.infer<typeof missedMessageTrigger>;

/** The message as the senders show it, taken when the notification is decided so neither sender reads it again. */
export const missedMessageSnapshot = z.strictObject({
  id: z.number().int(),
  senderId: z.number().int(),
  senderFullName: z.string(),
  senderEmail: z.string(),
  /** "stream" for a channel message, "private" for a direct message (Zulip's recipient types) */
  type: z.enum(["stream", "private"]),
  channelId: z.number().int().optional(),
  channelName: z.string().optional(),
  topic: z.string().optional(),
  /** every participant of a direct message, sender included */
  directRecipientIds: z.array(z.number().int()).optional(),
  content: z.string(),
  renderedContent: z.string(),
  /** seconds since the epoch */
  dateSent: z.number().int(),
});
export type MissedMessageSnapshot = z.infer<typeof missedMessageSnapshot>;

/**
 * The group whose mention notified a user, not mentioned personally (Zulip's
 * mentioned_user_group_id, with the name its push payloads and emails show
 * and the size its emails pick the smallest group by).
 */
export const mentionedUserGroupSchema = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  membersCount: z.number().int(),
});
export type MentionedUserGroup = z.infer<typeof mentionedUserGroupSchema>;

/** One user to notify about one message, and why. */
const notifiedUser = z.strictObject({
  userId: z.number().int(),
  trigger: missedMessageTrigger,
  mentionedUserGroup: mentionedUserGroupSchema.optional(),
});

/**
 * The users to push about one message (work item on JetStream). One item per
 * message rather than Zulip's one per user: the queue's cost is per item, and
 * a message to a busy channel notifies many.
 */
export const missedMessageNotices = z.strictObject({
  realmId: z.number().int(),
  message: missedMessageSnapshot,
  users: z.array(notifiedUser).min(1),
});
export type MissedMessageNotices = z.infer<typeof missedMessageNotices>;

/**
 * The users to email about one message: each with their
 * email_notifications_batching_period_seconds as it was when decided, so that
 * the mailer schedules them without asking identity again.
 */
export const missedMessageEmailNotices = missedMessageNotices.extend({
  users: z.array(notifiedUser.extend({ batchingSeconds: z.number().int() })).min(1),
});
export type MissedMessageEmailNotices = z.infer<typeof missedMessageEmailNotices>;

/** One user to notify about one message, by email or push, as the senders handle it. */
export type MissedMessageNotice = Pick<MissedMessageNotices, "realmId" | "message"> & z.infer<typeof notifiedUser>;

/** A work item's notices, one per user. */
export const noticesOf = <T extends MissedMessageNotices>({
  realmId,
  message,
  users,
}: T): Array<Pick<T, "realmId" | "message"> & T["users"][number]> => users.map((u) => ({ realmId, message, ...u }));

/** Push notifications to withdraw from a user's devices: the messages were read elsewhere or deleted (Zulip's "remove" payload). */
export const pushRemovalNotice = z.strictObject({
  realmId: z.number().int(),
  userId: z.number().int(),
  messageIds: z.array(z.number().int()).min(1),
});
export type PushRemovalNotice = z.infer<typeof pushRemovalNotice>;

/** JetStream subjects of the notification work queue (stream NOTIFICATION_WORK). */
export const notificationWorkSubjects = {
  email: "notify.email",
  push: "notify.push",
  pushRemoval: "notify.push-removal",
  digest: "notify.digest",
  queueCollected: "notify.queue-collected",
} as const;
