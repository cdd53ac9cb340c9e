import { identity, requireRealm, type Handler } from "@teamchat/shared";
import { settingsOf } from "../users/settings";
import type { UserDirectory } from "../users/user-directory";

/** Internal: the active humans whose settings notify them of every channel message, by email or push. */
export const getChannelNotificationUsersHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.getChannelNotificationUsers> =>
  async (_params, ctx) => {
    const realm = requireRealm(ctx);
    const everyone = await users.all(realm.id);
    return {
      user_ids: everyone
        .filter((u) => {
          if (!u.isActive || u.isBot) return false;
          const s = settingsOf(u);
          return s.enable_stream_email_notifications || s.enable_stream_push_notifications;
        })
        .map((u) => u.userId),
    };
  };
