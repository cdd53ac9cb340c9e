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
 * max_channel_folder_* are register's keys in Zulip since feature level 389,
 * newer than zulip.yaml.
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

const idAndName = z.strictObject({ name: z.string(), id: int });

/** Zulip's GroupPermissionSetting (server_supported_permission_settings). */
const groupPermissionSettingSchema = z.strictObject({
  require_system_group: z.boolean(),
  allow_internet_group: z.boolean(),
  allow_nobody_group: z.boolean(),
  allow_everyone_group: z.boolean(),
  default_group_name: z.string(),
  default_for_system_groups: z.string().nullable(),
  allowed_system_groups: z.array(z.string()),
});

/** Zulip's thumbnail formats (server_thumbnail_formats). */
const thumbnailFormatSchema = z.strictObject({
  name: z.string(),
  max_width: int,
  max_height: int,
  format: z.string(),
  animated: z.boolean(),
});

/** The organization's profile, sign-up, preview, mail and call settings, and what the server offers for them. */
const realmProfileKeys = {
  realm_default_language: z.string(),
  realm_default_code_block_language: z.string(),
  realm_welcome_message_custom_text: z.string(),
  realm_inline_image_preview: z.boolean(),
  realm_inline_url_embed_preview: z.boolean(),
  /** deprecated: topics_policy "disable_empty_topic" */
  realm_mandatory_topics: z.boolean(),
  realm_require_unique_names: z.boolean(),
  realm_name_changes_disabled: z.boolean(),
  realm_email_changes_disabled: z.boolean(),
  realm_avatar_changes_disabled: z.boolean(),
  realm_digest_emails_enabled: z.boolean(),
  realm_digest_weekday: int,
  realm_send_welcome_emails: z.boolean(),
  realm_message_content_allowed_in_email_notifications: z.boolean(),
  realm_want_advertise_in_communities_directory: z.boolean(),
  realm_emails_restricted_to_domains: z.boolean(),
  realm_invite_required: z.boolean(),
  realm_disallow_disposable_email_addresses: z.boolean(),
  realm_enable_guest_user_dm_warning: z.boolean(),
  realm_enable_guest_user_indicator: z.boolean(),
  realm_waiting_period_threshold: int,
  realm_video_chat_provider: int,
  realm_jitsi_server_url: z.string().nullable(),
  realm_giphy_rating: int,
  realm_org_type: int,
  /** -1 for none */
  realm_moderation_request_channel_id: int,
  realm_signup_announcements_stream_id: int,
  realm_zulip_update_announcements_stream_id: int,
  /** deprecated policies, derived from the group settings that replaced them */
  realm_create_public_stream_policy: int,
  realm_create_private_stream_policy: int,
  realm_create_web_public_stream_policy: int,
  realm_wildcard_mention_policy: int,
  realm_authentication_methods: z.record(
    z.string(),
    z.strictObject({ enabled: z.boolean(), available: z.boolean(), unavailable_reason: z.string().optional() }),
  ),
  realm_icon_url: z.string(),
  realm_icon_source: z.enum(["G", "U"]),
  realm_logo_url: z.string(),
  realm_logo_source: z.enum(["D", "U"]),
  realm_night_logo_url: z.string(),
  realm_night_logo_source: z.enum(["D", "U"]),
  realm_available_video_chat_providers: z.record(z.string(), idAndName),
  giphy_rating_options: z.record(z.string(), idAndName),
  realm_push_notifications_enabled_end_timestamp: int.nullable(),
  realm_upload_quota_mib: int.nullable(),
  realm_plan_type: int,
  zulip_plan_is_not_limited: z.boolean(),
  upgrade_text_for_wide_organization_logo: z.string(),
  /** present only for a demo organization */
  demo_organization_scheduled_deletion_date: int.optional(),
  /** deprecated: realm_jitsi_server_url or server_jitsi_server_url */
  jitsi_server_url: z.string(),
  server_jitsi_server_url: z.string().nullable(),
  settings_send_digest_emails: z.boolean(),
  max_file_upload_size_mib: int,
  max_icon_file_size_mib: int,
  max_logo_file_size_mib: int,
  max_avatar_file_size_mib: int,
  password_min_length: int,
  password_max_length: int,
  password_min_guesses: int,
  giphy_api_key: z.string(),
  server_inline_image_preview: z.boolean(),
  server_inline_url_embed_preview: z.boolean(),
  server_thumbnail_formats: z.array(thumbnailFormatSchema),
  server_avatar_changes_disabled: z.boolean(),
  server_name_changes_disabled: z.boolean(),
  server_needs_upgrade: z.boolean(),
  server_emoji_data_url: z.string(),
  server_can_summarize_topics: z.boolean(),
  server_min_deactivated_realm_deletion_days: int.nullable(),
  server_max_deactivated_realm_deletion_days: int.nullable(),
  server_typing_started_expiry_period_milliseconds: int,
  server_typing_stopped_wait_period_milliseconds: int,
  server_typing_started_wait_period_milliseconds: int,
  server_supported_permission_settings: z.strictObject({
    realm: z.record(z.string(), groupPermissionSettingSchema),
    stream: z.record(z.string(), groupPermissionSettingSchema),
    group: z.record(z.string(), groupPermissionSettingSchema),
  }),
};

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
    ...realmProfileKeys,
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
    /** the longest note a reminder takes (POST /reminders' note) */
    max_reminder_note_length: int,
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

/** The organization's billing (Zulip Cloud); no plans or sponsorships here. */
export const realmBillingPart = statePart(
  ["realm_billing"],
  z.strictObject({ realm_billing: z.strictObject({ has_pending_sponsorship_request: z.boolean() }) }),
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
  realmBillingPart,
  realmDomainsPart,
  realmEmojiPart,
  realmLinkifiersPart,
  realmFiltersPart,
  realmPlaygroundsPart,
  channelFoldersPart,
]);
