import {
  LIMITS,
  REALM_GROUP_SETTING_DEFAULTS,
  SYSTEM_GROUPS,
  type RealmGroupSetting,
  type realmConfig,
} from "@teamchat/shared";
import { profileSettings } from "./profile-settings";
import type { RealmDoc } from "./realm.schema";

/** Zulip's Message.EMPTY_TOPIC_FALLBACK_NAME: how the "" topic is shown. */
export const EMPTY_TOPIC_DISPLAY_NAME = "general chat";

/** The server-level WEB_PUBLIC_STREAMS_ENABLED (Zulip's self-hosted default). */
export const WEB_PUBLIC_STREAMS_ENABLED = false;

/** Stored organization settings (RealmDoc.settings, Zulip's names without `realm_`) and their defaults. */
/** Zulip's DEFAULT_MOVE_MESSAGE_LIMIT_SECONDS: a week. */
const MOVE_MESSAGE_LIMIT_SECONDS = 7 * 24 * 60 * 60;

const SETTING_DEFAULTS = {
  topics_policy: "allow_empty_topic" as realmConfig.RealmSettings["topics_policy"],
  enable_spectator_access: false,
  message_retention_days: -1,
  allow_message_editing: true,
  // Zulip's DEFAULT_MESSAGE_CONTENT_EDIT_LIMIT_SECONDS and ..._DELETE_...: ten minutes
  message_content_edit_limit_seconds: 600 as number | null,
  message_content_delete_limit_seconds: 600 as number | null,
  message_edit_history_visibility_policy: "all" as realmConfig.RealmSettings["message_edit_history_visibility_policy"],
  move_messages_within_stream_limit_seconds: MOVE_MESSAGE_LIMIT_SECONDS as number | null,
  move_messages_between_streams_limit_seconds: MOVE_MESSAGE_LIMIT_SECONDS as number | null,
  // Zulip's do_create_realm turns read receipts on for organizations that need an invitation to join
  enable_read_receipts: true,
  // Zulip's do_create_realm points it at the channel it creates with the organization; none is created here
  new_stream_announcements_stream_id: null as number | null,
  ...(Object.fromEntries(
    Object.entries(REALM_GROUP_SETTING_DEFAULTS).map(([name, group]) => [name, SYSTEM_GROUPS[group]]),
  ) as Record<RealmGroupSetting, number>),
};
type StoredSettings = typeof SETTING_DEFAULTS;

/** The organization's settings: its stored values over Zulip's defaults, plus the fixed limits. */
export function realmSettings(realm: RealmDoc): realmConfig.RealmSettings {
  const stored = Object.fromEntries(
    Object.keys(SETTING_DEFAULTS)
      .filter((k) => k in realm.settings)
      .map((k) => [k, realm.settings[k]]),
  ) as Partial<StoredSettings>;
  return {
    ...LIMITS,
    realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
    web_public_streams_enabled: WEB_PUBLIC_STREAMS_ENABLED,
    ...SETTING_DEFAULTS,
    ...stored,
    default_code_block_language: profileSettings(realm).default_code_block_language,
    inline_image_preview: profileSettings(realm).inline_image_preview,
    inline_url_embed_preview: profileSettings(realm).inline_url_embed_preview,
    avatar_changes_disabled: profileSettings(realm).avatar_changes_disabled,
    welcome_message_custom_text: profileSettings(realm).welcome_message_custom_text,
    moderation_request_channel_id: profileSettings(realm).moderation_request_channel_id,
  };
}
