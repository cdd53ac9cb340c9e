import { identity, isAdmin, mustBeAdmin, requireUser, type Handler } from "@teamchat/shared";
import { isSettingName, type SettingName, type SettingValue } from "../users/settings";
import { checkSettingValues } from "./update-settings";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";

/**
 * PATCH /realm/user_settings_defaults (Zulip's update_realm_user_settings_defaults):
 * administrators; each changed default is announced to the organization and
 * given to users created afterwards, not to existing ones.
 */
export const updateRealmUserSettingsDefaultsHandler =
  ({ userDefaults }: { userDefaults: RealmUserDefaults }): Handler<typeof identity.updateRealmUserSettingsDefaults> =>
  async (params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    checkSettingValues(params);
    const current = await userDefaults.get(realm.id);
    const changed = (Object.entries(params) as Array<[string, SettingValue | undefined]>).filter(
      (e): e is [SettingName, SettingValue] => isSettingName(e[0]) && e[1] !== undefined && current[e[0]] !== e[1],
    );
    if (changed.length > 0) await userDefaults.change(realm.id, changed, ctx.requestId);
    return {};
  };
