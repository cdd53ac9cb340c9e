import {
  provideState,
  REALM_GROUP_SETTING_DEFAULTS,
  realmConfig,
  requireRealm,
  type Config,
  type GroupSettingValue,
  type RealmGroupSetting,
} from "@teamchat/shared";
import { DEFAULT_EXTERNAL_ACCOUNTS } from "../profile-fields/external-accounts";
import type { RealmRecordRepository } from "./realm.repository";
import { realmSettings, WEB_PUBLIC_STREAMS_ENABLED } from "./settings";

/** Zulip's SERVER_GENERATION: when this process started, in UNIX seconds. */
const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/** register's realm keys: the organization, its permission settings, the server's limits and timings. */
export const realmState = (realms: RealmRecordRepository, config: Pick<Config, "EVENT_HEARTBEAT_SECONDS">) =>
  provideState(realmConfig.realmPart, async (_params, ctx) => {
    const realm = requireRealm(ctx);
    const record = (await realms.byId(realm.id))!;
    const settings = realmSettings(record);
    const groupSettings = Object.fromEntries(
      Object.keys(REALM_GROUP_SETTING_DEFAULTS).map((k) => [`realm_${k}`, settings[k as RealmGroupSetting]]),
    ) as Record<`realm_${RealmGroupSetting}`, GroupSettingValue>;
    return {
      realm_name: record.name,
      realm_description: record.description,
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
      server_generation: SERVER_GENERATION,
      server_web_public_streams_enabled: WEB_PUBLIC_STREAMS_ENABLED,
      // Zulip's EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS (90) is its heartbeat (60) plus margin.
      event_queue_longpoll_timeout_seconds: config.EVENT_HEARTBEAT_SECONDS + 30,
      development_environment: false,
    };
  });
