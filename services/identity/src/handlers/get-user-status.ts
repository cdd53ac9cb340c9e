import { badRequest, requireUser, type Handler, type identity } from "@teamchat/shared";
import type { Deps } from "../deps";
import { formatUserStatus } from "../status/user-status";
import { accessUserById } from "../users/access";

/** GET /users/{user_id}/status (Zulip's get_status_backend): an active human user's status, `{}` when unset. */
export const getUserStatusHandler =
  ({ users }: Deps<"users">): Handler<typeof identity.getUserStatus> =>
  async (p, ctx) => {
    const { realm } = requireUser(ctx);
    const target = await accessUserById(users, realm, p.user_id);
    if (target.isBot) throw badRequest("No such user");
    if (!target.isActive) throw badRequest("User is deactivated");
    return { status: formatUserStatus(target) };
  };
