import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList, groupSettingValueSchema } from "../common";
import { TOPICS_POLICIES } from "../../domain/channels";
import { channelCreationParams } from "./channel-params";

/** Zulip's BasicChannel: GET /streams, /streams/{stream_id} and stream events. */
export const channelSchema = z.object({
  stream_id: int,
  name: z.string(),
  is_archived: z.boolean(),
  description: z.string(),
  rendered_description: z.string(),
  date_created: int,
  creator_id: int.nullable(),
  invite_only: z.boolean(),
  is_web_public: z.boolean(),
  stream_post_policy: int,
  message_retention_days: int.nullable(),
  history_public_to_subscribers: z.boolean(),
  topics_policy: z.enum(TOPICS_POLICIES),
  first_message_id: int.nullable(),
  is_recently_active: z.boolean(),
  is_announcement_only: z.boolean(),
  stream_weekly_traffic: int.nullable(),
  can_add_subscribers_group: groupSettingValueSchema,
  can_remove_subscribers_group: groupSettingValueSchema,
  can_administer_channel_group: groupSettingValueSchema,
  can_send_message_group: groupSettingValueSchema,
  can_subscribe_group: groupSettingValueSchema,
});
export type Channel = z.infer<typeof channelSchema>;

export const createChannel = defineContract({
  subject: "messaging.channels.create",
  http: { method: "POST", path: "/channels/create", auth: "user" },
  params: z.object({
    name: z.string(),
    description: z.string().default(""),
    subscribers: intList,
    folder_id: int.optional(),
    ...channelCreationParams,
  }),
  reply: z.object({ id: int }),
});

export const getStreams = defineContract({
  subject: "messaging.channels.list",
  http: { method: "GET", path: "/streams", auth: "user" },
  params: z.object({
    include_public: z.boolean().default(true),
    include_web_public: z.boolean().default(false),
    include_subscribed: z.boolean().default(true),
    exclude_archived: z.boolean().default(true),
    include_all_active: z.boolean().default(false),
    include_all: z.boolean().default(false),
    include_default: z.boolean().default(false),
    include_owner_subscribed: z.boolean().default(false),
    include_can_access_content: z.boolean().default(false),
  }),
  reply: z.object({
    /** is_default: only with include_default */
    streams: z.array(channelSchema.extend({ is_default: z.boolean().optional() })),
  }),
});

export const getStreamById = defineContract({
  subject: "messaging.channels.get",
  http: { method: "GET", path: "/streams/{stream_id}", auth: "user" },
  params: z.object({ stream_id: int }),
  reply: z.object({ stream: channelSchema }),
});

/** GET /get_stream_id: a channel's id by name (Zulip's json_get_stream_id). */
export const getStreamId = defineContract({
  subject: "messaging.channels.id",
  http: { method: "GET", path: "/get_stream_id", auth: "user" },
  params: z.object({ stream: z.string() }),
  reply: z.object({ stream_id: int }),
});

/** GET /streams/{stream_id}/members: the channel's active subscribers (Zulip's get_subscribers_backend). */
export const getSubscribers = defineContract({
  subject: "messaging.channels.members",
  http: { method: "GET", path: "/streams/{stream_id}/members", auth: "user" },
  params: z.object({ stream_id: int }),
  reply: z.object({ subscribers: intList }),
});

/** GET /streams/{stream_id}/email_address: the channel's incoming-email address ("" without an email gateway). */
export const getStreamEmailAddress = defineContract({
  subject: "messaging.channels.email",
  http: { method: "GET", path: "/streams/{stream_id}/email_address", auth: "user" },
  params: z.object({ stream_id: int, sender_id: int.optional() }),
  reply: z.object({ email: z.string() }),
});
