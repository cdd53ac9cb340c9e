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
  web_public_streams_enabled: z.boolean(),
  message_retention_days: z.number().int(),
  /** Zulip group-setting values: a system group id or {direct_members, direct_subgroups} */
  can_create_web_public_channel_group: z.unknown(),
  can_create_public_channel_group: z.unknown(),
  can_create_private_channel_group: z.unknown(),
  can_add_subscribers_group: z.unknown(),
});
export type RealmSettings = z.infer<typeof realmSettingsSchema>;

export const getRealmSettings = defineContract({
  subject: "realm-config.realm.settings",
  params: z.object({}),
  reply: realmSettingsSchema,
});

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
