import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList } from "../common";
import { editHistoryEntrySchema } from "./messages";

/**
 * Internal (the management CLI's import-realm): the channels of an imported
 * organization and their subscriptions, ids of its users already remapped.
 * Written as they were, without the notices and events of creating them anew.
 */
export const importChannels = defineContract({
  subject: "messaging.import.channels",
  params: z.object({
    channels: z.array(
      z.object({
        old_id: int,
        name: z.string(),
        description: z.string(),
        rendered_description: z.string(),
        invite_only: z.boolean(),
        is_web_public: z.boolean(),
        history_public_to_subscribers: z.boolean(),
        message_retention_days: int.nullable(),
        topics_policy: z.string(),
        date_created: z.number(),
        creator: int.nullable(),
        is_default: z.boolean(),
        archived: z.boolean(),
      }),
    ),
    subscriptions: z.array(
      z.object({
        user_id: int,
        old_stream_id: int,
        active: z.boolean(),
        color: z.string(),
        is_muted: z.boolean(),
        pin_to_top: z.boolean(),
        desktop_notifications: z.boolean().nullable(),
        audible_notifications: z.boolean().nullable(),
        push_notifications: z.boolean().nullable(),
        email_notifications: z.boolean().nullable(),
        wildcard_mentions_notify: z.boolean().nullable(),
      }),
    ),
  }),
  reply: z.strictObject({ streams: z.array(z.tuple([int, int])) }),
});

/** Internal (import-realm): a batch of messages, in the order sent, with reactions and each receiver's flags. */
export const importMessages = defineContract({
  subject: "messaging.import.messages",
  params: z.object({
    messages: z.array(
      z.object({
        sender: int,
        /** the channel's new id, or null for a direct message */
        stream_id: int.nullable(),
        /** a direct message's participants (sender included) */
        dm_user_ids: intList.nullable(),
        topic: z.string(),
        content: z.string(),
        rendered_content: z.string(),
        date_sent: int,
        client: z.string(),
        /** oldest first, ids remapped */
        edit_history: z.array(editHistoryEntrySchema).nullable(),
        last_edit_time: int.nullable(),
        resolve_topic_notification: z.boolean(),
        reactions: z.array(
          z.object({ user_id: int, emoji_name: z.string(), emoji_code: z.string(), reaction_type: z.string() }),
        ),
        user_messages: z.array(z.object({ user_id: int, flags: z.array(z.string()) })),
      }),
    ),
  }),
  reply: z.strictObject({ ids: intList }),
});

/**
 * Internal (import-realm): uploads whose bytes were written through
 * messaging's put_chunk, with the messages (new ids) that link them.
 */
export const importAttachments = defineContract({
  subject: "messaging.import.attachments",
  params: z.object({
    attachments: z.array(
      z.object({
        path_id: z.string(),
        file_id: z.string(),
        name: z.string(),
        content_type: z.string(),
        size: int,
        owner: int,
        create_time: z.number(),
        message_ids: intList,
      }),
    ),
  }),
  reply: z.strictObject({}),
});
