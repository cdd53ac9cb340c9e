import type { Handler, identity } from "@teamchat/shared";
import { SETTING_DEFAULTS, isSettingName, type Settings } from "../users/settings";
import type { UserDirectory } from "../users/user-directory";

/** Zulip's settings of an export that this server has, of the type it keeps them in. */
const knownSettings = (given: Record<string, unknown>): Partial<Settings> =>
  Object.fromEntries(
    Object.entries(given).filter(
      ([name, value]) => isSettingName(name) && typeof value === typeof SETTING_DEFAULTS[name],
    ),
  );

/** Internal (import-realm): the users of an imported organization, in order; answers their new ids. */
export const importUsersHandler =
  (deps: { users: UserDirectory }): Handler<typeof identity.importUsers> =>
  async ({ users }, ctx) => {
    const realmId = ctx.realm!.id;
    const ids: number[] = [];
    for (const u of users) {
      const created = await deps.users.insert({
        realmId,
        deliveryEmail: u.delivery_email,
        fullName: u.full_name,
        role: u.role,
        isBot: u.is_bot,
        botType: u.bot_type,
        botOwnerId: u.bot_owner,
        dateJoined: new Date(u.date_joined * 1000),
        timezone: u.timezone,
        passwordHash: null,
        canCreateUsers: u.can_create_users,
        canChangeUserEmails: u.can_change_user_emails,
        settings: knownSettings(u.settings),
      });
      if (!u.is_active) await deps.users.change(realmId, created.userId, { isActive: false });
      ids.push(created.userId);
    }
    ctx.log.info({ users: ids.length }, "users imported");
    return { ids };
  };
