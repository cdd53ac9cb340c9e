import type { RealmDoc } from "./realm.schema";

/**
 * Zulip's Realm.VIDEO_CHAT_PROVIDERS on a server without Zoom or BigBlueButton
 * configured (register's realm_available_video_chat_providers).
 */
export const VIDEO_CHAT_PROVIDERS = {
  disabled: { name: "None", id: 0 },
  jitsi_meet: { name: "Jitsi Meet", id: 1 },
};

/** Zulip's Realm.GIPHY_RATING_OPTIONS (register's giphy_rating_options). */
export const GIPHY_RATING_OPTIONS = {
  disabled: { name: "GIPHY integration disabled", id: 0 },
  y: { name: "Allow GIFs rated Y (Very young audience)", id: 1 },
  g: { name: "Allow GIFs rated G (General audience)", id: 2 },
  pg: { name: "Allow GIFs rated PG (Parental guidance)", id: 3 },
  "pg-13": { name: "Allow GIFs rated PG-13 (Parental guidance - under 13)", id: 4 },
  r: { name: "Allow GIFs rated R (Restricted)", id: 5 },
};

/**
 * Zulip's AUTH_BACKEND_NAME_MAP as far as this server goes: email and
 * password, always on (register's realm_authentication_methods).
 */
export const AUTHENTICATION_METHODS = { Email: { enabled: true, available: true } };

/** Zulip's OrgTypeEnum values (Realm.ORG_TYPE_IDS). */
export const ORG_TYPE_IDS = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000];

/** Zulip's Realm.DIGEST_WEEKDAY_VALUES: Monday (0) .. Sunday (6). */
export const DIGEST_WEEKDAYS = [0, 1, 2, 3, 4, 5, 6];

/** Zulip's Realm.MAX_REALM_DESCRIPTION_LENGTH and update_realm's JITSI_SERVER_URL_MAX_LENGTH. */
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;
export const JITSI_SERVER_URL_MAX_LENGTH = 200;

/**
 * The organization's own settings of Zulip's Realm.property_types that only
 * realm-config reads (the organization profile, sign-up, previews, mail, video
 * calls), with Zulip's model defaults. Stored in RealmDoc.settings beside
 * those other services enforce (settings.ts).
 */
export const PROFILE_SETTING_DEFAULTS = {
  inline_image_preview: true,
  inline_url_embed_preview: false,
  require_unique_names: false,
  name_changes_disabled: false,
  email_changes_disabled: false,
  avatar_changes_disabled: false,
  digest_emails_enabled: false,
  send_welcome_emails: true,
  message_content_allowed_in_email_notifications: true,
  want_advertise_in_communities_directory: false,
  emails_restricted_to_domains: false,
  invite_required: true,
  disallow_disposable_email_addresses: true,
  enable_guest_user_dm_warning: true,
  enable_guest_user_indicator: true,
  waiting_period_threshold: 0,
  video_chat_provider: VIDEO_CHAT_PROVIDERS.jitsi_meet.id,
  giphy_rating: GIPHY_RATING_OPTIONS.g.id,
  // Tuesday
  digest_weekday: 1,
  org_type: 0,
  default_language: "en",
  default_code_block_language: "",
  welcome_message_custom_text: "",
  jitsi_server_url: null as string | null,
  // the channels Zulip's do_set_realm_stream sets; null for none (-1 on the wire)
  moderation_request_channel_id: null as number | null,
  signup_announcements_stream_id: null as number | null,
  zulip_update_announcements_stream_id: null as number | null,
};

export type ProfileSettings = typeof PROFILE_SETTING_DEFAULTS;
export type ProfileSettingName = keyof ProfileSettings;

/** Changing these takes an organization owner (Zulip's update_realm raises OrganizationOwnerRequiredError). */
export const OWNER_ONLY_PROFILE_SETTINGS: readonly ProfileSettingName[] = [
  "invite_required",
  "emails_restricted_to_domains",
  "disallow_disposable_email_addresses",
  "waiting_period_threshold",
];

/** The organization's profile settings: its stored values over Zulip's defaults. */
export function profileSettings(realm: RealmDoc): ProfileSettings {
  const stored = Object.fromEntries(
    Object.keys(PROFILE_SETTING_DEFAULTS)
      .filter((k) => k in realm.settings)
      .map((k) => [k, realm.settings[k]]),
  );
  return { ...PROFILE_SETTING_DEFAULTS, ...stored } as ProfileSettings;
}
