import { identity, requireRealm, type Handler } from "@teamchat/shared";
import type { PresenceStore } from "../presence/presence-store";
import { settingsOf } from "../users/settings";
import type { UserDirectory } from "../users/user-directory";

/** Internal: addresses, notification settings and last active presence of these users. */
export const getNotificationRecipientsHandler =
  ({
    users,
    presence,
  }: {
    users: UserDirectory;
    presence: PresenceStore;
  }): Handler<typeof identity.getNotificationRecipients> =>
  async ({ user_ids }, ctx) => {
    const realm = requireRealm(ctx);
    const found = await users.byIds(realm.id, user_ids);
    return {
      users: found.map((u) => {
        const settings = settingsOf(u);
        return {
          user_id: u.userId,
          full_name: u.fullName,
          delivery_email: u.deliveryEmail,
          is_active: u.isActive,
          is_bot: u.isBot,
          presence_active_at: presence.get(realm.id, u.userId)?.activeAt ?? null,
          settings: Object.fromEntries(
            identity.NOTIFICATION_SETTING_NAMES.map((name) => [name, settings[name]]),
          ) as identity.NotificationRecipient["settings"],
        };
      }),
    };
  };
