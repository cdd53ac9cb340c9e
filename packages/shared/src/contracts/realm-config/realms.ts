import { z } from "zod";
import { realmRefSchema } from "../../actor";
import { defineContract } from "../../contract";
import { WELCOME_MESSAGE_CUSTOM_TEXT_MAX_LENGTH } from "../identity/invites";
import { groupSettingValueSchema, groupSettingValueUpdateSchema, int } from "../common";
import { REALM_TOPICS_POLICIES } from "../../domain/channels";
import { REALM_GROUP_SETTING_DEFAULTS, type RealmGroupSetting } from "../../domain/groups";

/** Internal: the gateway turns a request's Host into its organization. */
export const resolveRealm = defineContract({
  subject: "realm-config.realms.resolve",
  params: z.object({ host: z.string() }),
  reply: realmRefSchema.strict(),
});

/** Internal: an organization by its id, for work done outside a request (push notifications name it). */
export const realmById = defineContract({
  subject: "realm-config.realms.by_id",
  params: z.object({ realm_id: int }),
  reply: realmRefSchema.strict(),
});

/** Internal: every organization, with what the push notification service is told of each (Zulip's get_realms_info_for_push_bouncer). */
export const listRealms = defineContract({
  subject: "realm-config.realms.list",
  params: z.object({}),
  reply: z.strictObject({
    realms: z.array(z.strictObject({ realm: realmRefSchema.strict(), date_created: z.number(), org_type: int })),
  }),
});

/** Internal (management CLI): create an organization. */
export const createRealm = defineContract({
  subject: "realm-config.realms.create",
  params: z.object({
    subdomain: z
      .string()
      .regex(/^$|^[a-z0-9][a-z0-9-]{0,39}$/, "Subdomain can only have lowercase letters, digits and dashes"),
    name: z.string().min(1).max(40),
  }),
  reply: z.strictObject({ realm: realmRefSchema.strict(), created: z.boolean() }),
});

/**
 * Internal: the organization settings other services enforce (length limits,
 * empty-topic display name, permissions). Zulip's register names, without the
 * `realm_` prefix where Zulip has one.
 */
/** What may be done to a message after it is sent; time limits in seconds, null = no limit. */
const messageEditSettings = {
  allow_message_editing: z.boolean(),
  message_content_edit_limit_seconds: int.nullable(),
  message_content_delete_limit_seconds: int.nullable(),
  message_edit_history_visibility_policy: z.enum(["all", "moves", "none"]),
  move_messages_within_stream_limit_seconds: int.nullable(),
  move_messages_between_streams_limit_seconds: int.nullable(),
  enable_read_receipts: z.boolean(),
};

export const realmSettingsSchema = z.strictObject({
  max_stream_name_length: int,
  max_stream_description_length: int,
  max_topic_length: int,
  max_message_length: int,
  max_channel_folder_name_length: int,
  max_channel_folder_description_length: int,
  realm_empty_topic_display_name: z.string(),
  /** whether channels whose topics_policy is "inherit" take messages in the empty topic */
  topics_policy: z.enum(REALM_TOPICS_POLICIES),
  enable_spectator_access: z.boolean(),
  /** the server-level WEB_PUBLIC_STREAMS_ENABLED */
  web_public_streams_enabled: z.boolean(),
  /** -1 = keep forever */
  message_retention_days: int,
  /** the channel Notification Bot announces new channels in (Zulip's new_stream_announcements_stream); null for none */
  new_stream_announcements_stream_id: int.nullable(),
  /** the private channel Notification Bot posts message reports in (Zulip's moderation_request_channel); null for none */
  moderation_request_channel_id: int.nullable(),
  /** the language of a code block that names none (Zulip's default_code_block_language; "" for none) */
  default_code_block_language: z.string(),
  /** whether messages show previews of the images they link (Zulip's inline_image_preview) */
  inline_image_preview: z.boolean(),
  /** whether messages show previews of the web pages they link (Zulip's inline_url_embed_preview) */
  inline_url_embed_preview: z.boolean(),
  /** whether only administrators may change avatars (Zulip's avatar_changes_disabled) */
  avatar_changes_disabled: z.boolean(),
  /** what Welcome Bot tells new users whose invitation names no text (Zulip's welcome_message_custom_text; "" for nothing) */
  welcome_message_custom_text: z.string(),
  ...messageEditSettings,
  ...(Object.fromEntries(Object.keys(REALM_GROUP_SETTING_DEFAULTS).map((k) => [k, groupSettingValueSchema])) as Record<
    RealmGroupSetting,
    typeof groupSettingValueSchema
  >),
});

export type RealmSettings = z.infer<typeof realmSettingsSchema>;

export const getRealmSettings = defineContract({
  subject: "realm-config.realm.settings",
  params: z.object({}),
  reply: realmSettingsSchema,
});

/** Zulip's Realm.MAX_REALM_NAME_LENGTH. */
export const MAX_REALM_NAME_LENGTH = 40;

/** A time limit as PATCH /realm takes it: seconds (positive), or "unlimited". */
const timeLimitParam = z.union([int, z.string()]);

const groupSettingParams = Object.fromEntries(
  Object.keys(REALM_GROUP_SETTING_DEFAULTS).map((k) => [k, groupSettingValueUpdateSchema.optional()]),
) as Record<RealmGroupSetting, z.ZodOptional<typeof groupSettingValueUpdateSchema>>;

const groupSettingReplies = Object.fromEntries(
  Object.keys(REALM_GROUP_SETTING_DEFAULTS).map((k) => [k, groupSettingValueSchema.optional()]),
) as Record<RealmGroupSetting, z.ZodOptional<typeof groupSettingValueSchema>>;

/** Zulip's Realm.MAX_REALM_DESCRIPTION_LENGTH. */
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;

/** Yes/no settings of the organization profile, sign-up, previews and mail (Zulip's Realm.property_types). */
const PROFILE_FLAGS = [
  "inline_image_preview",
  "inline_url_embed_preview",
  "require_unique_names",
  "name_changes_disabled",
  "email_changes_disabled",
  "avatar_changes_disabled",
  "digest_emails_enabled",
  "send_welcome_emails",
  "message_content_allowed_in_email_notifications",
  "want_advertise_in_communities_directory",
  "emails_restricted_to_domains",
  "invite_required",
  "disallow_disposable_email_addresses",
  "enable_guest_user_dm_warning",
  "enable_guest_user_indicator",
] as const;

/** Numbered settings (enums, days) and channel settings (-1 for none). */
const PROFILE_NUMBERS = [
  "waiting_period_threshold",
  "video_chat_provider",
  "giphy_rating",
  "digest_weekday",
  "org_type",
  "moderation_request_channel_id",
  "signup_announcements_stream_id",
  "zulip_update_announcements_stream_id",
] as const;

const profileFlagParams = Object.fromEntries(PROFILE_FLAGS.map((k) => [k, z.boolean().optional()])) as Record<
  (typeof PROFILE_FLAGS)[number],
  z.ZodOptional<z.ZodBoolean>
>;
const profileNumberParams = Object.fromEntries(PROFILE_NUMBERS.map((k) => [k, int.optional()])) as Record<
  (typeof PROFILE_NUMBERS)[number],
  z.ZodOptional<typeof int>
>;

/**
 * PATCH /realm (Zulip's update_realm): the organization settings this server
 * keeps. Each one sent that differs from its value is changed; the reply lists
 * those, as Zulip's does ("updated" for text, the parsed value otherwise).
 */
export const updateRealm = defineContract({
  subject: "realm-config.realm.update",
  http: { method: "PATCH", path: "/realm", auth: "user" },
  params: z.object({
    name: z.string().max(MAX_REALM_NAME_LENGTH).optional(),
    description: z.string().max(MAX_REALM_DESCRIPTION_LENGTH).optional(),
    /** what Welcome Bot tells new users unless their invitation says otherwise; "" for nothing */
    welcome_message_custom_text: z.string().max(WELCOME_MESSAGE_CUSTOM_TEXT_MAX_LENGTH).optional(),
    default_language: z.string().optional(),
    default_code_block_language: z.string().optional(),
    /**
     * a URL, or "default" for the server's (null). Zulip takes it as JSON text
     * (Json[str], what its web app sends); the union makes it JSON when it parses
     * and the raw text otherwise, so a bare URL works too.
     */
    jitsi_server_url: z.union([z.string(), z.literal("default")]).optional(),
    /** deprecated: true is message_edit_history_visibility_policy "all", false "none" */
    allow_edit_history: z.boolean().optional(),
    /** enabled or not, by method name (Zulip's AUTH_BACKEND_NAME_MAP keys) */
    authentication_methods: z.record(z.string(), z.boolean()).optional(),
    /** deprecated: true is topics_policy "disable_empty_topic", false "allow_empty_topic" */
    mandatory_topics: z.boolean().optional(),
    ...profileFlagParams,
    ...profileNumberParams,
    allow_message_editing: z.boolean().optional(),
    message_content_edit_limit_seconds: timeLimitParam.optional(),
    message_content_delete_limit_seconds: timeLimitParam.optional(),
    move_messages_within_stream_limit_seconds: timeLimitParam.optional(),
    move_messages_between_streams_limit_seconds: timeLimitParam.optional(),
    message_edit_history_visibility_policy: z.enum(["all", "moves", "none"]).optional(),
    enable_read_receipts: z.boolean().optional(),
    enable_spectator_access: z.boolean().optional(),
    topics_policy: z.enum(REALM_TOPICS_POLICIES).optional(),
    /** days, or "unlimited" */
    message_retention_days: z.union([int, z.string()]).optional(),
    /** -1 for none */
    new_stream_announcements_stream_id: int.optional(),
    ...groupSettingParams,
  }),
  reply: z.strictObject({
    name: z.literal("updated").optional(),
    description: z.literal("updated").optional(),
    welcome_message_custom_text: z.literal("updated").optional(),
    default_language: z.literal("updated").optional(),
    default_code_block_language: z.literal("updated").optional(),
    jitsi_server_url: z.literal("updated").nullable().optional(),
    ...profileFlagParams,
    ...profileNumberParams,
    allow_message_editing: z.boolean().optional(),
    message_content_edit_limit_seconds: int.nullable().optional(),
    message_content_delete_limit_seconds: int.nullable().optional(),
    move_messages_within_stream_limit_seconds: int.nullable().optional(),
    move_messages_between_streams_limit_seconds: int.nullable().optional(),
    message_edit_history_visibility_policy: z.enum(["all", "moves", "none"]).optional(),
    enable_read_receipts: z.boolean().optional(),
    enable_spectator_access: z.boolean().optional(),
    topics_policy: z.enum(REALM_TOPICS_POLICIES).optional(),
    message_retention_days: int.optional(),
    new_stream_announcements_stream_id: int.optional(),
    ...groupSettingReplies,
  }),
});
