import { z } from "zod";
import { REALM_TOPICS_POLICIES } from "../../domain/channels";
import { REALM_GROUP_SETTING_DEFAULTS, type RealmGroupSetting } from "../../domain/groups";
import { ProfileFieldType } from "../../domain/profile-fields";
import { groupSettingValueSchema, int } from "../common";
import { registerStateContract, statePart } from "../register";
import { channelFolderSchema } from "./channel-folders";
import { realmLinkifierSchema, realmPlaygroundSchema } from "./linkifiers";
import { customProfileFieldSchema } from "./profile-fields";

/**
 * realm-config's part of POST /register (Zulip's fetch_initial_state_data),
 * grouped by the event type that keeps each key current. channel_folders and
 * max_channel_folder_* are newer than zulip.yaml (feature level 389); the
 * requirements name them as register's.
 */

/** What server this is: sent whatever the client asks for. */
export const versionPart = statePart(
  [],
  z.strictObject({ zulip_version: z.string(), zulip_feature_level: int, zulip_merge_base: z.string() }),
);

/** Zulip's DEFAULT_EXTERNAL_ACCOUNTS entry: a ready-made external account profile field. */
export const defaultExternalAccountSchema = z.strictObject({
  text: z.string(),
  url_pattern: z.string(),
  name: z.string(),
  hint: z.string(),
});

const realmGroupSettings = Object.fromEntries(
  Object.keys(REALM_GROUP_SETTING_DEFAULTS).map((k) => [`realm_${k}`, groupSettingValueSchema]),
) as Record<`realm_${RealmGroupSetting}`, typeof groupSettingValueSchema>;

/** The organization, its permissions and the server's limits and timings. */
export const realmPart = statePart(
  ["realm"],
  z.strictObject({
    realm_name: z.string(),
    realm_description: z.string(),
    realm_uri: z.string(),
    realm_url: z.string(),
    realm_date_created: int,
    realm_empty_topic_display_name: z.string(),
    realm_topics_policy: z.enum(REALM_TOPICS_POLICIES),
    /** -1 = keep forever */
    realm_message_retention_days: int,
    realm_enable_spectator_access: z.boolean(),
    realm_allow_message_editing: z.boolean(),
    realm_message_content_edit_limit_seconds: int.nullable(),
    realm_message_content_delete_limit_seconds: int.nullable(),
    realm_message_edit_history_visibility_policy: z.enum(["all", "moves", "none"]),
    /** deprecated: false when the policy is "none" */
    realm_allow_edit_history: z.boolean(),
    realm_move_messages_within_stream_limit_seconds: int.nullable(),
    realm_move_messages_between_streams_limit_seconds: int.nullable(),
    realm_enable_read_receipts: z.boolean(),
    /** where Notification Bot announces new channels; -1 for none */
    realm_new_stream_announcements_stream_id: int,
    ...realmGroupSettings,
    /** by subtype (twitter, github) */
    realm_default_external_accounts: z.record(z.string(), defaultExternalAccountSchema),
    realm_email_auth_enabled: z.boolean(),
    realm_password_auth_enabled: z.boolean(),
    realm_push_notifications_enabled: z.boolean(),
    realm_presence_disabled: z.boolean(),
    realm_is_zephyr_mirror_realm: z.boolean(),
    /** the host bots' emails are on, without the port */
    realm_bot_domain: z.string(),
    max_stream_name_length: int,
    max_stream_description_length: int,
    max_topic_length: int,
    max_message_length: int,
    max_channel_folder_name_length: int,
    max_channel_folder_description_length: int,
    server_generation: int,
    server_web_public_streams_enabled: z.boolean(),
    event_queue_longpoll_timeout_seconds: int,
    development_environment: z.boolean(),
  }),
);

const profileFieldTypeSchema = z.strictObject({ id: int, name: z.string() });

/** The organization's custom profile fields and the types a field can have (keyed SHORT_TEXT .. PRONOUNS). */
export const customProfileFieldsPart = statePart(
  ["custom_profile_fields"],
  z.strictObject({
    custom_profile_fields: z.array(customProfileFieldSchema),
    custom_profile_field_types: z.strictObject(
      Object.fromEntries(Object.keys(ProfileFieldType).map((k) => [k, profileFieldTypeSchema])) as Record<
        keyof typeof ProfileFieldType,
        typeof profileFieldTypeSchema
      >,
    ),
  }),
);

/** Zulip's RealmDomain. */
export const realmDomainSchema = z.strictObject({ domain: z.string(), allow_subdomains: z.boolean() });

export const realmDomainsPart = statePart(
  ["realm_domains"],
  z.strictObject({ realm_domains: z.array(realmDomainSchema) }),
);

/** Zulip's RealmEmoji. */
export const realmEmojiSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  source_url: z.string(),
  still_url: z.string().nullable(),
  deactivated: z.boolean(),
  author_id: int.nullable(),
});

/** Custom emoji by id. */
export const realmEmojiPart = statePart(
  ["realm_emoji"],
  z.strictObject({ realm_emoji: z.record(z.string(), realmEmojiSchema) }),
);

/** The linkifiers in processing order: empty for clients without the linkifier_url_template capability. */
export const realmLinkifiersPart = statePart(
  ["realm_linkifiers"],
  z.strictObject({ realm_linkifiers: z.array(realmLinkifierSchema) }),
);

/** Zulip's deprecated form of the linkifiers: always empty since feature level 176 (URL templates are not format strings). */
export const realmFiltersPart = statePart(
  ["realm_filters"],
  z.strictObject({ realm_filters: z.array(z.tuple([z.string(), z.string(), int])) }),
);

export const realmPlaygroundsPart = statePart(
  ["realm_playgrounds"],
  z.strictObject({ realm_playgrounds: z.array(realmPlaygroundSchema) }),
);

/** Every channel folder, archived ones included, as GET /channel_folders orders them (Zulip's fetch_initial_state_data). */
export const channelFoldersPart = statePart(
  ["channel_folders"],
  z.strictObject({ channel_folders: z.array(channelFolderSchema) }),
);

export const registerState = registerStateContract("realm-config", [
  versionPart,
  realmPart,
  customProfileFieldsPart,
  realmDomainsPart,
  realmEmojiPart,
  realmLinkifiersPart,
  realmFiltersPart,
  realmPlaygroundsPart,
  channelFoldersPart,
]);
