import { badRequest, requireUser, type Handler, type identity } from "@teamchat/shared";
import { formatUserStatus } from "../status/user-status";
import { accessUserById } from "../users/access";
import type { UserDirectory } from "../users/user-directory";

/** GET /users/{user_id}/status (Zulip's get_status_backend): an active human user's status, `{}` when unset. */
export const getUserStatusHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.getUserStatus> =>
  async (p, ctx) => {
    const { realm } = requireUser(ctx);
    const target = await accessUserById(users, realm, p.user_id);
    if (target.isBot) throw badRequest("No such user");
    if (!target.isActive) throw badRequest("User is deactivated");
    return { status: formatUserStatus(target) };
  };
