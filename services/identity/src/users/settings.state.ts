import { identity, provideState, requireRealm, type RegisterStateParams, type StateProvider } from "@teamchat/shared";
import { caller } from "./access";
import { EMOJISET_CHOICES, NOTIFICATION_SOUNDS, settingsOf, type SettingName, type Settings } from "./settings";
import type { UserDirectory } from "./user-directory";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";

const choices = { emojiset_choices: EMOJISET_CHOICES, available_notification_sounds: NOTIFICATION_SOUNDS };

/** Clients without the user_settings_object capability read settings at the top level (Zulip's legacy keys). */
const wantsLegacyKeys = (params: RegisterStateParams) => params.client_capabilities.user_settings_object !== true;

const pick = <K extends SettingName>(settings: Settings, keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, settings[k]])) as Pick<Settings, K>;

/** The organization's defaults and the caller's own settings (and their legacy top-level copies). */
export const settingsState = ({
  users,
  userDefaults,
}: {
  users: UserDirectory;
  userDefaults: RealmUserDefaults;
}): StateProvider[] => [
  provideState(identity.realmUserSettingsDefaultsState, async (_params, ctx) => ({
    realm_user_settings_defaults: { ...(await userDefaults.get(requireRealm(ctx).id)), ...choices },
  })),
  provideState(identity.userSettingsState, async (_params, ctx) => {
    const me = await caller(users, ctx);
    return { user_settings: { ...settingsOf(me), timezone: me.timezone, ...choices } };
  }),
  provideState(identity.legacyDisplaySettingsState, async (params, ctx) => {
    if (!wantsLegacyKeys(params)) return {};
    const me = await caller(users, ctx);
    return {
      ...pick(settingsOf(me), identity.LEGACY_DISPLAY_SETTINGS),
      timezone: me.timezone,
      emojiset_choices: EMOJISET_CHOICES,
    };
  }),
  provideState(identity.legacyNotificationSettingsState, async (params, ctx) => {
    if (!wantsLegacyKeys(params)) return {};
    const me = await caller(users, ctx);
    return {
      ...pick(settingsOf(me), identity.LEGACY_NOTIFICATION_SETTINGS),
      available_notification_sounds: NOTIFICATION_SOUNDS,
    };
  }),
  // Zulip keeps a Zoom OAuth token per user; this server offers no Zoom integration, so no user has one.
  provideState(identity.videoCallsState, async () => ({ has_zoom_token: false })),
];
