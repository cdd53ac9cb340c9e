import { z } from "zod";
import { defineContract } from "../contract";
import { groupSettingValueSchema } from "./realm-config";

/**
 * Internal: who is in a conversation, for typing notifications. The caller is
 * the actor; messaging refuses (with Zulip's errors) what the actor may not see.
 * - channel: the channel's subscribers (stream_id + topic)
 * - direct: the users in `to` plus the actor
 * - message_id: the audience of that message (E17, typing while editing)
 */
export const getConversationAudience = defineContract({
  subject: "messaging.conversations.audience",
  params: z.object({
    stream_id: z.number().int().optional(),
    topic: z.string().optional(),
    to: z.array(z.number().int()).optional(),
    message_id: z.number().int().optional(),
  }),
  reply: z.object({
    user_ids: z.array(z.number().int()),
    /** for channel conversations: where, as Zulip's typing events carry it */
    stream_id: z.number().int().optional(),
    topic: z.string().optional(),
  }),
});

const int = z.number().int();
const intList = z.array(int);

/** Channel permission settings of POST /channels/create (E2), stored and returned as given. */
export const CHANNEL_GROUP_SETTINGS = [
  "can_add_subscribers_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_remove_subscribers_group",
  "can_administer_channel_group",
  "can_move_messages_out_of_channel_group",
  "can_move_messages_within_channel_group",
  "can_send_message_group",
  "can_subscribe_group",
  "can_resolve_topics_group",
] as const;
export type ChannelGroupSetting = (typeof CHANNEL_GROUP_SETTINGS)[number];

const groupSettingParams = Object.fromEntries(
  CHANNEL_GROUP_SETTINGS.map((name) => [name, groupSettingValueSchema.optional()]),
) as Record<ChannelGroupSetting, z.ZodOptional<typeof groupSettingValueSchema>>;

export const TOPICS_POLICIES = ["inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"] as const;

/** Channel properties shared by POST /channels/create and POST /users/me/subscriptions. */
const channelCreationParams = {
  announce: z.boolean().default(false),
  invite_only: z.boolean().default(false),
  is_web_public: z.boolean().default(false),
  is_default_stream: z.boolean().default(false),
  history_public_to_subscribers: z.boolean().optional(),
  message_retention_days: z.union([z.string(), int]).default("realm_default"),
  topics_policy: z.string().optional(),
  ...groupSettingParams,
};

/** A channel or subscription object; zulip.yaml (checked in tests) holds the exact shape. */
const looseObject = z.record(z.string(), z.unknown());

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
  reply: z.object({ streams: z.array(looseObject) }),
});

export const getStreamById = defineContract({
  subject: "messaging.channels.get",
  http: { method: "GET", path: "/streams/{stream_id}", auth: "user" },
  params: z.object({ stream_id: int }),
  reply: z.object({ stream: looseObject }),
});

export const getSubscriptions = defineContract({
  subject: "messaging.subscriptions.list",
  http: { method: "GET", path: "/users/me/subscriptions", auth: "user" },
  params: z.object({ include_subscribers: z.union([z.boolean(), z.literal("partial")]).default(false) }),
  reply: z.object({ subscriptions: z.array(looseObject) }),
});

export const subscribe = defineContract({
  subject: "messaging.subscriptions.add",
  http: { method: "POST", path: "/users/me/subscriptions", auth: "user" },
  params: z.object({
    subscriptions: z.array(z.object({ name: z.string(), description: z.string().optional() })),
    principals: z.union([z.array(z.string()), intList]).optional(),
    authorization_errors_fatal: z.boolean().default(true),
    ...channelCreationParams,
  }),
  reply: z.object({
    subscribed: z.record(z.string(), z.array(z.string())),
    already_subscribed: z.record(z.string(), z.array(z.string())),
    unauthorized: z.array(z.string()).optional(),
  }),
});

export const sendMessage = defineContract({
  subject: "messaging.messages.send",
  http: { method: "POST", path: "/messages", auth: "user" },
  params: z.object({
    type: z.enum(["direct", "channel", "private", "stream"]),
    to: z.union([z.string(), int, z.array(z.union([int, z.string()]))]),
    content: z.string(),
    topic: z.string().optional(),
    subject: z.string().optional(),
    queue_id: z.string().optional(),
    local_id: z.string().optional(),
    read_by_sender: z.boolean().optional(),
  }),
  reply: z.object({ id: int, automatic_new_visibility_policy: int.optional() }),
});

/** A narrow term: Zulip's object form or the legacy [operator, operand] pair. */
export const narrowTermSchema = z.union([
  z.object({
    operator: z.string(),
    operand: z.union([z.string(), int, intList, z.array(z.string())]),
    negated: z.boolean().default(false),
  }),
  z.tuple([z.string(), z.union([z.string(), int, intList, z.array(z.string())])]),
]);

export const getMessages = defineContract({
  subject: "messaging.messages.list",
  http: { method: "GET", path: "/messages", auth: "user" },
  params: z.object({
    anchor: z.union([z.string(), int]).optional(),
    include_anchor: z.boolean().optional(),
    num_before: int.min(0).optional(),
    num_after: int.min(0).optional(),
    narrow: z.array(narrowTermSchema).default([]),
    client_gravatar: z.boolean().default(true),
    apply_markdown: z.boolean().default(true),
    message_ids: z.array(int.min(0)).optional(),
    allow_empty_topic_name: z.boolean().default(false),
    use_first_unread_anchor: z.boolean().optional(),
  }),
  reply: z.object({
    /** "newest" answers Zulip's LARGER_THAN_MAX_MESSAGE_ID (10^16), beyond the safe-integer range zod's int allows */
    anchor: z.number().optional(),
    found_anchor: z.boolean(),
    found_oldest: z.boolean(),
    found_newest: z.boolean(),
    history_limited: z.boolean(),
    messages: z.array(looseObject),
  }),
});

export const getStreamTopics = defineContract({
  subject: "messaging.topics.list",
  http: { method: "GET", path: "/users/me/{stream_id}/topics", auth: "user" },
  params: z.object({ stream_id: int, allow_empty_topic_name: z.boolean().default(false) }),
  reply: z.object({ topics: z.array(z.object({ name: z.string(), max_id: int })) }),
});
