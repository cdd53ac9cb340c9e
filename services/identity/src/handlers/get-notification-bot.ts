import { identity, requireRealm, type Handler } from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";

/** Internal: the organization's Notification Bot, for services that post as it. */
export const getNotificationBotHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.getNotificationBot> =>
  async (_params, ctx) => ({ user_id: (await users.notificationBot(requireRealm(ctx).id)).userId });
