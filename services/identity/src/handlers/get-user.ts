import { identity, requireUser, type Handler } from "@teamchat/shared";
import { accessUserByEmail, accessUserById } from "../users/access";
import { toUserResource } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";

/** GET /users/{user_id}: any user of the organization, deactivated ones and bots included. */
export const getUserHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.getUser> =>
  async (params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const user = await accessUserById(users, realm, params.user_id);
    return { user: toUserResource(user, actor, realm, params) };
  };

/** GET /users/{email}: by a dummy address, or by a real one the caller may see. */
export const getUserByEmailHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.getUserByEmail> =>
  async (params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const user = await accessUserByEmail(users, realm, actor, params.email);
    return { user: toUserResource(user, actor, realm, params) };
  };
