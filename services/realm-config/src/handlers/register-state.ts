import {
  registerState,
  requireRealm,
  wants,
  type Config,
  type Handler,
  ZULIP_VERSION,
  type RealmGroupSetting,
  ZULIP_FEATURE_LEVEL,
  REALM_GROUP_SETTING_DEFAULTS,
} from "@teamchat/shared";
import type { ProfileFieldRepository } from "../profile-fields/profile-field.repository";
import { profileFieldView } from "../profile-fields/profile-field-view";
import { DEFAULT_EXTERNAL_ACCOUNTS } from "../profile-fields/external-accounts";
import { FIELD_TYPE_NAMES, FieldType } from "../profile-fields/field-types";
import type { RealmRecordRepository } from "../realms/realm.repository";
import { realmSettings, WEB_PUBLIC_STREAMS_ENABLED } from "../realms/settings";

/** Zulip's SERVER_GENERATION: when this process started, in UNIX seconds. */
const SERVER_GENERATION = Math.floor(Date.now() / 1000);

const CUSTOM_PROFILE_FIELD_TYPES = Object.fromEntries(
  Object.entries(FieldType).map(([key, id]) => [key, { id, name: FIELD_TYPE_NAMES[key as keyof typeof FieldType] }]),
);

/**
 * This service's part of POST /register (Zulip's fetch_initial_state_data): the
 * version always; the rest grouped by the event type that keeps it current.
 * Keys newer than zulip.yaml (channel_folders, max_channel_folder_*) are left out
 * because clients validating against that document reject them.
 */
export const registerStateHandler =
  (
    realms: RealmRecordRepository,
    fields: ProfileFieldRepository,
    config: Pick<Config, "EVENT_HEARTBEAT_SECONDS">,
  ): Handler<ReturnType<typeof registerState>> =>
  async (params, ctx) => {
    const ref = requireRealm(ctx);
    const state: Record<string, unknown> = {
      zulip_version: ZULIP_VERSION,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_merge_base: ZULIP_VERSION,
    };
    if (wants(params, "realm")) {
      const realm = (await realms.byId(ref.id))!;
      const settings = realmSettings(realm);
      Object.assign(state, {
        realm_name: realm.name,
        realm_description: realm.description,
        realm_uri: ref.uri,
        realm_url: ref.uri,
        realm_date_created: Math.floor(realm.dateCreated.getTime() / 1000),
        realm_empty_topic_display_name: settings.realm_empty_topic_display_name,
        realm_message_retention_days: settings.message_retention_days,
        realm_enable_spectator_access: settings.enable_spectator_access,
        ...Object.fromEntries(
          Object.keys(REALM_GROUP_SETTING_DEFAULTS).map((k) => [`realm_${k}`, settings[k as RealmGroupSetting]]),
        ),
        realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
        realm_email_auth_enabled: true,
        realm_password_auth_enabled: true,
        realm_push_notifications_enabled: false,
        realm_presence_disabled: false,
        realm_is_zephyr_mirror_realm: false,
        realm_bot_domain: ref.host.replace(/:\d+$/, ""),
        max_stream_name_length: settings.max_stream_name_length,
        max_stream_description_length: settings.max_stream_description_length,
        max_topic_length: settings.max_topic_length,
        max_message_length: settings.max_message_length,
        server_generation: SERVER_GENERATION,
        server_web_public_streams_enabled: WEB_PUBLIC_STREAMS_ENABLED,
        // Zulip's EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS (90) is its heartbeat (60) plus margin.
        event_queue_longpoll_timeout_seconds: config.EVENT_HEARTBEAT_SECONDS + 30,
        development_environment: false,
      });
    }
    if (wants(params, "custom_profile_fields")) {
      state.custom_profile_fields = (await fields.inOrder(ref.id)).map(profileFieldView);
      state.custom_profile_field_types = CUSTOM_PROFILE_FIELD_TYPES;
    }
    if (wants(params, "realm_domains")) state.realm_domains = [];
    if (wants(params, "realm_emoji")) state.realm_emoji = {};
    if (wants(params, "realm_linkifiers")) state.realm_linkifiers = [];
    if (wants(params, "realm_filters")) state.realm_filters = [];
    if (wants(params, "realm_playgrounds")) state.realm_playgrounds = [];
    return state;
  };
