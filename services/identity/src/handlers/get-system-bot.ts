import { SYSTEM_BOTS, identity, requireRealm, type Handler } from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";

/** Internal: one of the organization's system bots, for services that post as it. */
export const getSystemBotHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.getSystemBot> =>
  async ({ email }, ctx) => {
    const bot = SYSTEM_BOTS.find((b) => b.email === email)!;
    return { user_id: (await users.systemBot(requireRealm(ctx).id, bot)).userId };
  };
