import { z } from "zod";
import { registerStateContract, statePart } from "../register";
import { deviceInfoSchema } from "./devices";
import { navigationViewSchema } from "./navigation-views";
import { onboardingStepSchema } from "./onboarding-steps";
import { pushDeviceInfoSchema } from "./push-devices";
import { presencesSchema, userStatusSchema } from "./presence";
import { settingValuesSchema, type SettingValues } from "./settings";
import { botSchema } from "./bots";
import { userGroupSchema } from "./user-groups";
import { userResourceSchema } from "./users";

/** register's cross_realm_bots entry (Zulip's get_cross_realm_dicts): a User as the bot sees itself, marked as a system bot. */
export const crossRealmBotSchema = userResourceSchema.omit({ profile_data: true }).extend({
  is_system_bot: z.literal(true),
  bot_type: z.number().int(),
  bot_owner_id: z.null(),
  avatar_url: z.string(),
});

export type CrossRealmBot = z.infer<typeof crossRealmBotSchema>;

/** identity's keys of POST /register, one part per group of Zulip's fetch_initial_state_data. */

const int = z.number().int();

/** The users, and who the caller is. */
export const realmUserState = statePart(
  ["realm_user"],
  z.object({
    realm_users: z.array(userResourceSchema),
    realm_non_active_users: z.array(userResourceSchema),
    /** the system bots (Notification Bot), which realm_users leaves out */
    cross_realm_bots: z.array(crossRealmBotSchema),
    /** Zulip's avatar sources: G (Gravatar) or U (uploaded) */
    avatar_source: z.enum(["G", "U"]),
    avatar_url: z.string(),
    avatar_url_medium: z.string(),
    is_owner: z.boolean(),
    is_admin: z.boolean(),
    is_guest: z.boolean(),
    is_moderator: z.boolean(),
    user_id: int,
    email: z.string(),
    delivery_email: z.string(),
    full_name: z.string(),
  }),
);

/** The bots the caller may administer: every bot for administrators, else their own (Zulip's get_owned_bot_dicts). */
export const realmBotState = statePart(["realm_bot"], z.object({ realm_bots: z.array(botSchema) }));

/** Who is online (modern format with slim_presence), and where POST /users/me/presence's last_update_id starts. */
export const presenceState = statePart(
  ["presence"],
  z.object({ presences: presencesSchema, presence_last_update_id: int, server_timestamp: z.number() }),
);

/** How often clients report presence and when they show someone offline (Zulip sends them with the realm). */
export const presenceTimingsState = statePart(
  ["realm"],
  z.object({ server_presence_ping_interval_seconds: int, server_presence_offline_threshold_seconds: int }),
);

/** The statuses users have set, by user id. */
export const userStatusState = statePart(
  ["user_status"],
  z.object({ user_status: z.record(z.string(), userStatusSchema) }),
);

/** User groups, system groups included; deactivated ones only for clients with include_deactivated_groups. */
export const realmUserGroupsState = statePart(
  ["realm_user_groups"],
  z.object({ realm_user_groups: z.array(userGroupSchema) }),
);

/** The user's navigation views (FL 390), as GET /navigation_views lists them. */
export const navigationViewsState = statePart(
  ["navigation_view"],
  z.object({ navigation_views: z.array(navigationViewSchema) }),
);

/** The choices a settings UI offers beside the values. */
const settingChoices = {
  emojiset_choices: z.array(z.object({ key: z.string(), text: z.string() })),
  available_notification_sounds: z.array(z.string()),
};

export const realmUserSettingsDefaultsState = statePart(
  ["realm_user_settings_defaults"],
  z.object({ realm_user_settings_defaults: settingValuesSchema.extend(settingChoices) }),
);

export const userSettingsState = statePart(
  ["user_settings"],
  z.object({ user_settings: settingValuesSchema.extend({ timezone: z.string(), ...settingChoices }) }),
);

/** Settings that older clients get at the top level of /register (Zulip's display_settings_legacy). */
export const LEGACY_DISPLAY_SETTINGS = [
  "color_scheme",
  "default_language",
  "demote_inactive_streams",
  "emojiset",
  "enable_drafts_synchronization",
  "enter_sends",
  "fluid_layout_width",
  "high_contrast_mode",
  "left_side_userlist",
  "starred_message_counts",
  "translate_emoticons",
  "twenty_four_hour_time",
  "web_home_view",
  "receives_typing_notifications",
] as const satisfies ReadonlyArray<keyof SettingValues>;

/** ... and Zulip's notification_settings_legacy. */
export const LEGACY_NOTIFICATION_SETTINGS = [
  "enable_desktop_notifications",
  "enable_digest_emails",
  "enable_login_emails",
  "enable_marketing_emails",
  "email_notifications_batching_period_seconds",
  "enable_offline_email_notifications",
  "enable_offline_push_notifications",
  "enable_online_push_notifications",
  "enable_sounds",
  "enable_stream_desktop_notifications",
  "enable_stream_email_notifications",
  "enable_stream_push_notifications",
  "enable_stream_audible_notifications",
  "wildcard_mentions_notify",
  "message_content_in_email_notifications",
  "notification_sound",
  "pm_content_in_desktop_notifications",
  "desktop_icon_count_display",
  "realm_name_in_email_notifications_policy",
  "presence_enabled",
] as const satisfies ReadonlyArray<keyof SettingValues>;

/** A pick() mask of these keys. */
const mask = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, true])) as { [P in K]: true };

/**
 * The legacy top-level settings: only for clients without the
 * user_settings_object capability, so every key is optional (absent for the others).
 */
export const legacyDisplaySettingsState = statePart(
  ["update_display_settings"],
  settingValuesSchema
    .pick(mask(LEGACY_DISPLAY_SETTINGS))
    .extend({ timezone: z.string(), emojiset_choices: settingChoices.emojiset_choices })
    .partial(),
);

export const legacyNotificationSettingsState = statePart(
  ["update_global_notifications"],
  settingValuesSchema
    .pick(mask(LEGACY_NOTIFICATION_SETTINGS))
    .extend({ available_notification_sounds: settingChoices.available_notification_sounds })
    .partial(),
);

/**
 * The one-time notices the user has not dismissed (Zulip's get_next_onboarding_steps),
 * and the navigation tour video (FL 369): null, none is configured here.
 */
export const onboardingStepsState = statePart(
  ["onboarding_steps"],
  z.object({ onboarding_steps: z.array(onboardingStepSchema), navigation_tour_video_url: z.string().nullable() }),
);

/** The user's E2EE push registrations by push_account_id (Zulip's get_push_devices, FL 406). */
export const pushDevicesState = statePart(
  ["push_device"],
  z.object({ push_devices: z.record(z.string(), pushDeviceInfoSchema) }),
);

/** The user's logged-in devices by id (Zulip's get_devices, FL 468). */
export const devicesState = statePart(["device"], z.object({ devices: z.record(z.string(), deviceInfoSchema) }));

/** The embedded bots one may create here, with their configuration templates (Zulip's EMBEDDED_BOTS). */
export const realmEmbeddedBotsState = statePart(
  ["realm_embedded_bots"],
  z.object({
    realm_embedded_bots: z.array(z.strictObject({ name: z.string(), config: z.record(z.string(), z.string()) })),
  }),
);

/** The incoming webhook integrations one may configure here (Zulip's WEBHOOK_INTEGRATIONS). */
export const realmIncomingWebhookBotsState = statePart(
  ["realm_incoming_webhook_bots"],
  z.object({
    realm_incoming_webhook_bots: z.array(
      z.strictObject({
        name: z.string(),
        display_name: z.string(),
        all_event_types: z.array(z.string()).nullable(),
        config_options: z.array(z.strictObject({ key: z.string(), label: z.string(), validator: z.string() })),
      }),
    ),
  }),
);

/** Whether the user completed the Zoom OAuth flow (Zulip's video_calls group). */
export const videoCallsState = statePart(["video_calls"], z.object({ has_zoom_token: z.boolean() }));

export const registerState = registerStateContract(
  "identity",
  [
    realmUserState,
    realmBotState,
    presenceState,
    presenceTimingsState,
    userStatusState,
    realmUserGroupsState,
    navigationViewsState,
    realmUserSettingsDefaultsState,
    userSettingsState,
    legacyDisplaySettingsState,
    legacyNotificationSettingsState,
    onboardingStepsState,
    pushDevicesState,
    devicesState,
    realmEmbeddedBotsState,
    realmIncomingWebhookBotsState,
    videoCallsState,
  ],
  // the organization's user lists (RealmUserLists)
  { sharedPieces: true },
);
