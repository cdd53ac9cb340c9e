import { z } from "zod";
import { defineContract } from "../../contract";
import { int } from "../common";

/** The personal settings that decide and shape missed-message notifications and other mail (Zulip's names). */
export const NOTIFICATION_SETTING_NAMES = [
  "enable_offline_email_notifications",
  "enable_offline_push_notifications",
  "enable_online_push_notifications",
  "enable_stream_email_notifications",
  "enable_stream_push_notifications",
  "enable_followed_topic_email_notifications",
  "enable_followed_topic_push_notifications",
  "wildcard_mentions_notify",
  "enable_followed_topic_wildcard_mentions_notify",
  "message_content_in_email_notifications",
  "email_notifications_batching_period_seconds",
  "realm_name_in_email_notifications_policy",
  "enable_digest_emails",
  "enable_login_emails",
] as const;

export const notificationRecipientSchema = z.strictObject({
  user_id: int,
  full_name: z.string(),
  delivery_email: z.string(),
  is_active: z.boolean(),
  is_bot: z.boolean(),
  /** the user's last "active" presence report, in seconds since the epoch; null when none */
  presence_active_at: int.nullable(),
  settings: z.strictObject({
    enable_offline_email_notifications: z.boolean(),
    enable_offline_push_notifications: z.boolean(),
    enable_online_push_notifications: z.boolean(),
    enable_stream_email_notifications: z.boolean(),
    enable_stream_push_notifications: z.boolean(),
    enable_followed_topic_email_notifications: z.boolean(),
    enable_followed_topic_push_notifications: z.boolean(),
    wildcard_mentions_notify: z.boolean(),
    enable_followed_topic_wildcard_mentions_notify: z.boolean(),
    message_content_in_email_notifications: z.boolean(),
    email_notifications_batching_period_seconds: int,
    realm_name_in_email_notifications_policy: int,
    enable_digest_emails: z.boolean(),
    enable_login_emails: z.boolean(),
  }),
});
export type NotificationRecipient = z.infer<typeof notificationRecipientSchema>;

/**
 * Internal: what notifications needs to decide who is told of a message while
 * away, and messaging to address and shape the mail: each user's address,
 * notification settings and last active presence. Unknown ids are left out.
 */
export const getNotificationRecipients = defineContract({
  subject: "identity.users.notification_recipients",
  params: z.object({ user_ids: z.array(int) }),
  reply: z.object({ users: z.array(notificationRecipientSchema) }),
});

/**
 * Internal: the organization's active human users whose own settings ask to
 * be notified of every channel message (enable_stream_email_notifications or
 * enable_stream_push_notifications on): the users Zulip's get_recipient_info
 * puts in stream_email_user_ids / stream_push_user_ids unless their
 * subscription says otherwise. Few in most organizations (Zulip's defaults
 * are off), so a send looks at them instead of at every subscriber.
 */
export const getChannelNotificationUsers = defineContract({
  subject: "identity.users.channel_notification_users",
  params: z.object({}),
  reply: z.object({ user_ids: z.array(int) }),
});
