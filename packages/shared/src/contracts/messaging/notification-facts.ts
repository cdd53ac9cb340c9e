import { z } from "zod";
import { defineContract } from "../../contract";
import { int } from "../common";

/** One recipient's muting and per-channel notification settings for a message (Zulip's get_recipient_info inputs). */
export const recipientNotificationFactsSchema = z.strictObject({
  user_id: int,
  /** the recipient muted the sender */
  sender_muted: z.boolean(),
  /** a channel message: the recipient's subscription is muted */
  channel_muted: z.boolean(),
  /** a channel message: the recipient's visibility policy for the topic (Zulip's UserTopic.VisibilityPolicy) */
  visibility_policy: int,
  /** a channel message: the subscription's own settings; null follows the user's global one */
  email_notifications: z.boolean().nullable(),
  push_notifications: z.boolean().nullable(),
  wildcard_mentions_notify: z.boolean().nullable(),
});
export type RecipientNotificationFacts = z.infer<typeof recipientNotificationFactsSchema>;

/** Internal: what messaging knows that decides whether each of these users is notified of a message. */
export const getNotificationFacts = defineContract({
  subject: "messaging.notifications.facts",
  params: z.object({
    sender_id: int,
    /** for a channel message */
    stream_id: int.optional(),
    topic: z.string().optional(),
    user_ids: z.array(int),
  }),
  reply: z.object({ users: z.array(recipientNotificationFactsSchema) }),
});

/**
 * Internal: of these messages, those the user has and has not read: a message
 * read or deleted since it was sent is not notified (Zulip's workers skip it).
 */
export const getUnreadMessageIds = defineContract({
  subject: "messaging.notifications.unread",
  params: z.object({ user_id: int, message_ids: z.array(int) }),
  reply: z.object({ message_ids: z.array(int) }),
});
