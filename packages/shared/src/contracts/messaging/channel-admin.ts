import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { CHANNEL_GROUP_SETTINGS, type ChannelGroupSetting } from "../../domain/groups";
import { int, intList, groupSettingValueUpdateSchema } from "../common";

const groupSettingUpdates = Object.fromEntries(
  CHANNEL_GROUP_SETTINGS.map((name) => [name, groupSettingValueUpdateSchema.optional()]),
) as Record<ChannelGroupSetting, z.ZodOptional<typeof groupSettingValueUpdateSchema>>;

/** PATCH /streams/{stream_id} (Zulip's update_stream_backend): each given property, in Zulip's order. */
export const updateStream = defineContract({
  subject: "messaging.channels.update",
  http: { method: "PATCH", path: "/streams/{stream_id}", auth: "user" },
  params: z.object({
    stream_id: int,
    description: z.string().optional(),
    new_name: z.string().optional(),
    is_private: z.boolean().optional(),
    is_web_public: z.boolean().optional(),
    history_public_to_subscribers: z.boolean().optional(),
    is_default_stream: z.boolean().optional(),
    message_retention_days: z.union([z.string(), int]).optional(),
    topics_policy: z.string().optional(),
    /** false unarchives the channel (true is ignored: DELETE archives) */
    is_archived: z.boolean().optional(),
    /** null takes the channel out of its folder */
    folder_id: int.nullable().optional(),
    ...groupSettingUpdates,
  }),
  reply: emptyReply,
});

/** DELETE /streams/{stream_id}: archives the channel (Zulip's deactivate_stream_backend). */
export const archiveStream = defineContract({
  subject: "messaging.channels.archive",
  http: { method: "DELETE", path: "/streams/{stream_id}", auth: "user" },
  params: z.object({ stream_id: int }),
  reply: emptyReply,
});

/** POST /default_streams: a channel new users join (administrators). */
export const addDefaultStream = defineContract({
  subject: "messaging.default-channels.add",
  http: { method: "POST", path: "/default_streams", auth: "user" },
  params: z.object({ stream_id: int }),
  reply: emptyReply,
});

/** DELETE /default_streams (administrators). */
export const removeDefaultStream = defineContract({
  subject: "messaging.default-channels.remove",
  http: { method: "DELETE", path: "/default_streams", auth: "user" },
  params: z.object({ stream_id: int }),
  reply: emptyReply,
});

/**
 * Internal: identity asks this of messaging after creating a person (POST
 * /users, an accepted invitation; no acting user for the latter): Zulip's
 * set_up_streams_for_new_human_user and process_new_human_user's referrer
 * notice. The new user joins `stream_ids` (an invitation's channels, those
 * still there), and the organization's default channels when
 * `include_realm_default_subscriptions`; `referrer_id` is told by the
 * Notification Bot that the invitation was accepted (null: nobody); Welcome
 * Bot sends the new user the custom message (send_initial_direct_messages_to_user).
 */
export const setUpNewHumanUser = defineContract({
  subject: "messaging.new-users.set-up",
  params: z.object({
    user_id: int,
    stream_ids: intList,
    include_realm_default_subscriptions: z.boolean(),
    referrer_id: int.nullable(),
    /** what Welcome Bot tells the new user: null for the organization's welcome_message_custom_text, "" for nothing */
    welcome_message_custom_text: z.string().nullable().default(null),
  }),
  reply: emptyReply,
});
