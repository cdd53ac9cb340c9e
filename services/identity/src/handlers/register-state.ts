import { Role, requireUser, wants, type Handler, type registerState } from "@teamchat/shared";
import {
  EMOJISET_CHOICES,
  LEGACY_DISPLAY_SETTINGS,
  LEGACY_NOTIFICATION_SETTINGS,
  NOTIFICATION_SOUNDS,
  SETTING_DEFAULTS,
  settingsOf,
} from "../users/settings";
import type { UserRepository } from "../users/user.repository";
import { apiEmail, avatarUrl, roleFlags, toUserResource } from "../users/user-view";

type RegisterStateContract = ReturnType<typeof registerState>;

/** identity's keys of POST /register, grouped by event type as Zulip's fetch_initial_state_data. */
export const registerStateHandler =
  (users: UserRepository): Handler<RegisterStateContract> =>
  async (params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const want = (type: string) => wants(params, type);
    const state: Record<string, unknown> = {};
    const all = want("realm_user") ? await users.all(realm.id) : [];
    const me = (all.find((u) => u.userId === actor.userId) ?? (await users.byId(realm.id, actor.userId)))!;

    if (want("realm_user")) {
      const opts = { client_gravatar: params.client_gravatar, include_custom_profile_fields: true };
      const view = all.map((u) => toUserResource(u, actor, realm, opts));
      state.realm_users = view.filter((u) => u.is_active);
      state.realm_non_active_users = view.filter((u) => !u.is_active);
      state.cross_realm_bots = [];
      Object.assign(state, {
        avatar_source: "G",
        avatar_url: avatarUrl(me),
        avatar_url_medium: `${avatarUrl(me)}&s=500`,
        ...roleFlags(me.role),
        is_moderator: me.role === Role.MODERATOR,
        user_id: me.userId,
        email: apiEmail(me, realm),
        delivery_email: me.deliveryEmail,
        full_name: me.fullName,
      });
    }
    if (want("realm_bot")) state.realm_bots = [];
    if (want("presence")) state.presences = {};
    if (want("realm_user_groups")) state.realm_user_groups = [];
    const choices = { emojiset_choices: EMOJISET_CHOICES, available_notification_sounds: NOTIFICATION_SOUNDS };
    if (want("realm_user_settings_defaults")) state.realm_user_settings_defaults = { ...SETTING_DEFAULTS, ...choices };
    const settings = { ...settingsOf(me), timezone: me.timezone };
    if (want("user_settings")) state.user_settings = { ...settings, ...choices };
    // Clients without the user_settings_object capability read settings at the top level.
    if (params.client_capabilities.user_settings_object !== true) {
      if (want("update_display_settings")) {
        for (const k of LEGACY_DISPLAY_SETTINGS) state[k] = settings[k];
        Object.assign(state, { timezone: me.timezone, emojiset_choices: EMOJISET_CHOICES });
      }
      if (want("update_global_notifications")) {
        for (const k of LEGACY_NOTIFICATION_SETTINGS) state[k] = settings[k];
        state.available_notification_sounds = NOTIFICATION_SOUNDS;
      }
    }
    return state;
  };
