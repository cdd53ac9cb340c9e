import {
  EMOJI_DATA_PATH,
  MAX_AVATAR_FILE_SIZE_MIB,
  MAX_FILE_UPLOAD_SIZE_MIB,
  messaging,
  provideState,
  REALM_GROUP_SETTING_DEFAULTS,
  SYSTEM_GROUPS,
  realmConfig,
  requireRealm,
  type Config,
  type GroupSettingValue,
  type RealmGroupSetting,
  renderMarkdown,
} from "@teamchat/shared";
import { DEFAULT_EXTERNAL_ACCOUNTS } from "../profile-fields/external-accounts";
import type { RealmRecordRepository } from "./realm.repository";
import { DEFAULT_LOGO_URL, realmIconUrl } from "./branding";
import { SUPPORTED_PERMISSION_SETTINGS } from "./group-setting-rules";
import {
  AUTHENTICATION_METHODS,
  GIPHY_RATING_OPTIONS,
  VIDEO_CHAT_PROVIDERS,
  profileSettings,
} from "./profile-settings";
import { realmSettings, WEB_PUBLIC_STREAMS_ENABLED } from "./settings";

/** Zulip's SERVER_GENERATION: when this process started, in UNIX seconds. */
const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/**
 * Server-level settings of Zulip (zproject/default_settings.py, computed_settings.py)
 * as a self-hosted server without GIPHY, Jitsi default server, thumbnailing,
 * topic summaries or billing has them.
 */
const SERVER = {
  password_min_length: 6,
  password_max_length: 100,
  password_min_guesses: 10000,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  max_avatar_file_size_mib: MAX_AVATAR_FILE_SIZE_MIB,
  jitsi_server_url: "https://meet.jit.si",
  typing_started_expiry_period_milliseconds: 15000,
  typing_stopped_wait_period_milliseconds: 5000,
  typing_started_wait_period_milliseconds: 10000,
  // Zulip's MIN_/MAX_DEACTIVATED_REALM_DELETION_DAYS: 14 days at least, no upper bound
  min_deactivated_realm_deletion_days: 14,
  max_deactivated_realm_deletion_days: null,
};

/** Zulip's PLAN_TYPE_SELF_HOSTED: no plan limits. */
const PLAN_TYPE_SELF_HOSTED = 1;

/**
 * The retired policy enums (Zulip's Realm.POLICY_*, WILDCARD_MENTION_POLICY_*)
 * that older clients read, derived from the system group now holding the
 * permission; a user group or anonymous group reads as members only.
 */
const COMMON_POLICY: Record<number, number> = {
  [SYSTEM_GROUPS["role:members"]]: 1,
  [SYSTEM_GROUPS["role:administrators"]]: 2,
  [SYSTEM_GROUPS["role:fullmembers"]]: 3,
  [SYSTEM_GROUPS["role:moderators"]]: 4,
  [SYSTEM_GROUPS["role:everyone"]]: 5,
  [SYSTEM_GROUPS["role:nobody"]]: 6,
  [SYSTEM_GROUPS["role:owners"]]: 7,
};
const WILDCARD_MENTION_POLICY: Record<number, number> = {
  [SYSTEM_GROUPS["role:everyone"]]: 1,
  [SYSTEM_GROUPS["role:members"]]: 2,
  [SYSTEM_GROUPS["role:fullmembers"]]: 3,
  [SYSTEM_GROUPS["role:administrators"]]: 5,
  [SYSTEM_GROUPS["role:owners"]]: 5,
  [SYSTEM_GROUPS["role:nobody"]]: 6,
  [SYSTEM_GROUPS["role:moderators"]]: 7,
};
const policyOf = (table: Record<number, number>, value: GroupSettingValue, fallback: number) =>
  typeof value === "number" ? (table[value] ?? fallback) : fallback;

/** register's realm keys: the organization, its permission settings, the server's limits and timings. */
export const realmState = ({
  realms,
  config,
}: {
  realms: RealmRecordRepository;
  config: Pick<Config, "EVENT_HEARTBEAT_SECONDS" | "INLINE_URL_EMBED_PREVIEW">;
}) =>
  provideState(realmConfig.realmPart, async (_params, ctx) => {
    const realm = requireRealm(ctx);
    const record = (await realms.byId(realm.id))!;
    const settings = realmSettings(record);
    const profile = profileSettings(record);
    const groupSettings = Object.fromEntries(
      Object.keys(REALM_GROUP_SETTING_DEFAULTS).map((k) => [`realm_${k}`, settings[k as RealmGroupSetting]]),
    ) as Record<`realm_${RealmGroupSetting}`, GroupSettingValue>;
    return {
      realm_name: record.name,
      // rendered, as Zulip's get_realm_rendered_description
      realm_description: renderMarkdown(record.description),
      realm_uri: realm.uri,
      realm_url: realm.uri,
      realm_date_created: Math.floor(record.dateCreated.getTime() / 1000),
      realm_empty_topic_display_name: settings.realm_empty_topic_display_name,
      realm_topics_policy: settings.topics_policy,
      realm_message_retention_days: settings.message_retention_days,
      realm_enable_spectator_access: settings.enable_spectator_access,
      realm_allow_message_editing: settings.allow_message_editing,
      realm_message_content_edit_limit_seconds: settings.message_content_edit_limit_seconds,
      realm_message_content_delete_limit_seconds: settings.message_content_delete_limit_seconds,
      realm_message_edit_history_visibility_policy: settings.message_edit_history_visibility_policy,
      realm_allow_edit_history: settings.message_edit_history_visibility_policy !== "none",
      realm_move_messages_within_stream_limit_seconds: settings.move_messages_within_stream_limit_seconds,
      realm_move_messages_between_streams_limit_seconds: settings.move_messages_between_streams_limit_seconds,
      realm_enable_read_receipts: settings.enable_read_receipts,
      realm_new_stream_announcements_stream_id: settings.new_stream_announcements_stream_id ?? -1,
      ...groupSettings,
      realm_default_language: profile.default_language,
      realm_default_code_block_language: profile.default_code_block_language,
      realm_welcome_message_custom_text: profile.welcome_message_custom_text,
      realm_inline_image_preview: profile.inline_image_preview,
      realm_inline_url_embed_preview: profile.inline_url_embed_preview,
      realm_mandatory_topics: settings.topics_policy === "disable_empty_topic",
      realm_require_unique_names: profile.require_unique_names,
      realm_name_changes_disabled: profile.name_changes_disabled,
      realm_email_changes_disabled: profile.email_changes_disabled,
      realm_avatar_changes_disabled: profile.avatar_changes_disabled,
      realm_digest_emails_enabled: profile.digest_emails_enabled,
      realm_digest_weekday: profile.digest_weekday,
      realm_send_welcome_emails: profile.send_welcome_emails,
      realm_message_content_allowed_in_email_notifications: profile.message_content_allowed_in_email_notifications,
      realm_want_advertise_in_communities_directory: profile.want_advertise_in_communities_directory,
      realm_emails_restricted_to_domains: profile.emails_restricted_to_domains,
      realm_invite_required: profile.invite_required,
      realm_disallow_disposable_email_addresses: profile.disallow_disposable_email_addresses,
      realm_enable_guest_user_dm_warning: profile.enable_guest_user_dm_warning,
      realm_enable_guest_user_indicator: profile.enable_guest_user_indicator,
      realm_waiting_period_threshold: profile.waiting_period_threshold,
      realm_video_chat_provider: profile.video_chat_provider,
      realm_jitsi_server_url: profile.jitsi_server_url,
      realm_giphy_rating: profile.giphy_rating,
      realm_org_type: profile.org_type,
      realm_moderation_request_channel_id: profile.moderation_request_channel_id ?? -1,
      realm_signup_announcements_stream_id: profile.signup_announcements_stream_id ?? -1,
      realm_zulip_update_announcements_stream_id: profile.zulip_update_announcements_stream_id ?? -1,
      realm_create_public_stream_policy: policyOf(COMMON_POLICY, settings.can_create_public_channel_group, 1),
      realm_create_private_stream_policy: policyOf(COMMON_POLICY, settings.can_create_private_channel_group, 1),
      realm_create_web_public_stream_policy: policyOf(COMMON_POLICY, settings.can_create_web_public_channel_group, 7),
      realm_wildcard_mention_policy: policyOf(WILDCARD_MENTION_POLICY, settings.can_mention_many_users_group, 2),
      realm_authentication_methods: AUTHENTICATION_METHODS,
      realm_icon_url: realmIconUrl(realm.id),
      realm_icon_source: "G" as const,
      realm_logo_url: DEFAULT_LOGO_URL,
      realm_logo_source: "D" as const,
      realm_night_logo_url: DEFAULT_LOGO_URL,
      realm_night_logo_source: "D" as const,
      realm_available_video_chat_providers: VIDEO_CHAT_PROVIDERS,
      giphy_rating_options: GIPHY_RATING_OPTIONS,
      realm_push_notifications_enabled_end_timestamp: null,
      realm_upload_quota_mib: null,
      realm_plan_type: PLAN_TYPE_SELF_HOSTED,
      zulip_plan_is_not_limited: true,
      upgrade_text_for_wide_organization_logo: "",
      jitsi_server_url: profile.jitsi_server_url ?? SERVER.jitsi_server_url,
      server_jitsi_server_url: SERVER.jitsi_server_url,
      settings_send_digest_emails: true,
      max_file_upload_size_mib: MAX_FILE_UPLOAD_SIZE_MIB,
      max_icon_file_size_mib: SERVER.max_icon_file_size_mib,
      max_logo_file_size_mib: SERVER.max_logo_file_size_mib,
      max_avatar_file_size_mib: SERVER.max_avatar_file_size_mib,
      password_min_length: SERVER.password_min_length,
      password_max_length: SERVER.password_max_length,
      password_min_guesses: SERVER.password_min_guesses,
      // no GIPHY API key configured: clients offer no GIF picker
      giphy_api_key: "",
      server_inline_image_preview: true,
      server_inline_url_embed_preview: config.INLINE_URL_EMBED_PREVIEW,
      server_thumbnail_formats: [],
      server_avatar_changes_disabled: false,
      server_name_changes_disabled: false,
      server_needs_upgrade: false,
      server_emoji_data_url: EMOJI_DATA_PATH,
      server_can_summarize_topics: false,
      server_min_deactivated_realm_deletion_days: SERVER.min_deactivated_realm_deletion_days,
      server_max_deactivated_realm_deletion_days: SERVER.max_deactivated_realm_deletion_days,
      server_typing_started_expiry_period_milliseconds: SERVER.typing_started_expiry_period_milliseconds,
      server_typing_stopped_wait_period_milliseconds: SERVER.typing_stopped_wait_period_milliseconds,
      server_typing_started_wait_period_milliseconds: SERVER.typing_started_wait_period_milliseconds,
      server_supported_permission_settings: SUPPORTED_PERMISSION_SETTINGS,
      realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
      realm_email_auth_enabled: true,
      realm_password_auth_enabled: true,
      realm_push_notifications_enabled: false,
      realm_presence_disabled: false,
      realm_is_zephyr_mirror_realm: false,
      realm_bot_domain: realm.host.replace(/:\d+$/, ""),
      max_stream_name_length: settings.max_stream_name_length,
      max_stream_description_length: settings.max_stream_description_length,
      max_topic_length: settings.max_topic_length,
      max_message_length: settings.max_message_length,
      max_channel_folder_name_length: settings.max_channel_folder_name_length,
      max_channel_folder_description_length: settings.max_channel_folder_description_length,
      max_reminder_note_length: messaging.MAX_REMINDER_NOTE_LENGTH,
      server_generation: SERVER_GENERATION,
      server_web_public_streams_enabled: WEB_PUBLIC_STREAMS_ENABLED,
      // Zulip's EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS (90) is its heartbeat (60) plus margin.
      event_queue_longpoll_timeout_seconds: config.EVENT_HEARTBEAT_SECONDS + 30,
      development_environment: false,
    };
  });

/** register's realm_billing: no Zulip Cloud billing here, so never a pending sponsorship request. */
export const realmBillingState = provideState(realmConfig.realmBillingPart, async () => ({
  realm_billing: { has_pending_sponsorship_request: false },
}));
