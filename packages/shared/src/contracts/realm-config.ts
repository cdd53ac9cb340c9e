import { z } from "zod";
import { realmRefSchema } from "../actor";
import { defineContract } from "../contract";

export const ZULIP_VERSION = "11.0-teamchat";
export const ZULIP_FEATURE_LEVEL = 417;

/** Internal: the gateway turns a request's Host into its organization. */
export const resolveRealm = defineContract({
  subject: "realm-config.realms.resolve",
  params: z.object({ host: z.string() }),
  reply: realmRefSchema,
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
  reply: z.object({ realm: realmRefSchema, created: z.boolean() }),
});

export const getServerSettings = defineContract({
  subject: "realm-config.server_settings.get",
  http: { method: "GET", path: "/server_settings", auth: "none" },
  params: z.object({}),
  reply: z.object({
    authentication_methods: z.record(z.string(), z.boolean()),
    external_authentication_methods: z.array(z.object({})),
    zulip_feature_level: z.number().int(),
    zulip_version: z.string(),
    zulip_merge_base: z.string(),
    push_notifications_enabled: z.boolean(),
    is_incompatible: z.boolean(),
    email_auth_enabled: z.boolean(),
    require_email_format_usernames: z.boolean(),
    realm_uri: z.string(),
    realm_url: z.string(),
    realm_name: z.string(),
    realm_icon: z.string(),
    realm_description: z.string(),
    realm_web_public_access_enabled: z.boolean(),
  }),
});

/** Zulip's fixed limits (Stream.MAX_*_LENGTH, MAX_TOPIC_NAME_LENGTH, MAX_MESSAGE_LENGTH, ChannelFolder.MAX_*_LENGTH). */
export const LIMITS = {
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  max_topic_length: 60,
  max_message_length: 10000,
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
} as const;

/**
 * System user groups. Zulip creates them per organization with database ids; here
 * every organization has the same fixed ids, so group-setting values can be
 * computed without a lookup. User-created groups (identity) must be numbered above
 * LAST_SYSTEM_GROUP_ID. Clients never compare group ids across organizations.
 */
export const SYSTEM_GROUPS = {
  "role:owners": 1,
  "role:administrators": 2,
  "role:moderators": 3,
  "role:fullmembers": 4,
  "role:members": 5,
  "role:everyone": 6,
  "role:internet": 7,
  "role:nobody": 8,
} as const;
export type SystemGroupName = keyof typeof SYSTEM_GROUPS;
export const LAST_SYSTEM_GROUP_ID = 8;

/** Zulip's group-setting value: a group id, or an anonymous group of users and subgroups. */
export const groupSettingValueSchema = z.union([
  z.number().int(),
  z.object({ direct_members: z.array(z.number().int()), direct_subgroups: z.array(z.number().int()) }),
]);
export type GroupSettingValue = z.infer<typeof groupSettingValueSchema>;

/** Zulip's Realm.REALM_PERMISSION_GROUP_SETTINGS that this server keeps, with Zulip's defaults. */
export const REALM_GROUP_SETTING_DEFAULTS = {
  can_access_all_users_group: "role:everyone",
  can_add_custom_emoji_group: "role:members",
  can_add_subscribers_group: "role:members",
  can_create_bots_group: "role:members",
  can_create_groups: "role:members",
  can_create_private_channel_group: "role:members",
  can_create_public_channel_group: "role:members",
  can_create_web_public_channel_group: "role:owners",
  can_create_write_only_bots_group: "role:members",
  can_delete_any_message_group: "role:administrators",
  can_delete_own_message_group: "role:everyone",
  can_invite_users_group: "role:members",
  can_manage_all_groups: "role:owners",
  can_manage_billing_group: "role:administrators",
  can_mention_many_users_group: "role:administrators",
  can_move_messages_between_channels_group: "role:members",
  can_move_messages_between_topics_group: "role:everyone",
  can_resolve_topics_group: "role:everyone",
  can_set_topics_policy_group: "role:members",
  can_summarize_topics_group: "role:everyone",
  create_multiuse_invite_group: "role:administrators",
  direct_message_initiator_group: "role:everyone",
  direct_message_permission_group: "role:everyone",
} as const satisfies Record<string, SystemGroupName>;
export type RealmGroupSetting = keyof typeof REALM_GROUP_SETTING_DEFAULTS;

/**
 * Internal: the organization settings other services enforce (length limits,
 * empty-topic display name, permissions). Zulip's register names, without the
 * `realm_` prefix where Zulip has one.
 */
export const realmSettingsSchema = z.object({
  max_stream_name_length: z.number().int(),
  max_stream_description_length: z.number().int(),
  max_topic_length: z.number().int(),
  max_message_length: z.number().int(),
  max_channel_folder_name_length: z.number().int(),
  max_channel_folder_description_length: z.number().int(),
  realm_empty_topic_display_name: z.string(),
  enable_spectator_access: z.boolean(),
  /** the server-level WEB_PUBLIC_STREAMS_ENABLED */
  web_public_streams_enabled: z.boolean(),
  /** -1 = keep forever */
  message_retention_days: z.number().int(),
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

/** Custom profile field types (requirements: resource table), shared by realm-config (definitions) and identity (values). */
export const ProfileFieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** Zulip's CustomProfileField (zulip.yaml components/schemas/CustomProfileField). */
export const customProfileFieldSchema = z.object({
  id: z.number().int(),
  /** 1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 person picker, 7 external account, 8 pronouns */
  type: z.number().int().min(1).max(8),
  order: z.number().int(),
  name: z.string(),
  hint: z.string(),
  /** JSON text, as Zulip sends it ("" when the type has none) */
  field_data: z.string(),
  display_in_profile_summary: z.boolean().optional(),
  required: z.boolean(),
  editable_by_user: z.boolean(),
});
export type CustomProfileField = z.infer<typeof customProfileFieldSchema>;

/** GET /realm/profile_fields; identity calls it over the bus to validate and render profile_data. */
export const listProfileFields = defineContract({
  subject: "realm-config.profile_fields.list",
  http: { method: "GET", path: "/realm/profile_fields", auth: "user" },
  params: z.object({}),
  reply: z.object({ custom_fields: z.array(customProfileFieldSchema) }),
});

/** Zulip's ProfileFieldData: choices of a list field, or an external account's subtype/url_pattern. */
export const profileFieldDataSchema = z.record(z.string(), z.union([z.record(z.string(), z.string()), z.string()]));

/** POST /realm/profile_fields (E8). */
export const createProfileField = defineContract({
  subject: "realm-config.profile_fields.create",
  http: { method: "POST", path: "/realm/profile_fields", auth: "user" },
  params: z.object({
    name: z
      .string()
      .default("")
      .transform((s) => s.trim()),
    hint: z.string().default(""),
    field_type: z.number().int(),
    field_data: profileFieldDataSchema.nullable().default(null),
    display_in_profile_summary: z.boolean().default(false),
    required: z.boolean().default(false),
    editable_by_user: z.boolean().default(true),
  }),
  reply: z.object({ id: z.number().int() }),
});

/** Channel folder (requirements: channel_folder_id in create's reply; Zulip's ChannelFolder in lists). */
export const channelFolderSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  order: z.number().int(),
  date_created: z.number().int(),
  creator_id: z.number().int().nullable(),
  is_archived: z.boolean(),
});
export type ChannelFolder = z.infer<typeof channelFolderSchema>;

/** GET /channel_folders; messaging calls it over the bus to check a channel's folder_id. */
export const listChannelFolders = defineContract({
  subject: "realm-config.channel_folders.list",
  http: { method: "GET", path: "/channel_folders", auth: "user" },
  params: z.object({ include_archived: z.boolean().default(false) }),
  reply: z.object({ channel_folders: z.array(channelFolderSchema) }),
});

/** Python's len(): Zulip's length limits count code points, not UTF-16 units. */
const cappedString = (name: string, max: number) =>
  z.string().refine((s) => [...s].length <= max, `${name} is too long (limit: ${max} characters)`);

/** POST /channel_folders/create (E6). */
export const createChannelFolder = defineContract({
  subject: "realm-config.channel_folders.create",
  http: { method: "POST", path: "/channel_folders/create", auth: "user" },
  params: z.object({
    name: cappedString("name", LIMITS.max_channel_folder_name_length),
    description: cappedString("description", LIMITS.max_channel_folder_description_length),
  }),
  reply: z.object({ channel_folder_id: z.number().int() }),
});
