import { identity, requireUser, type Handler } from "@teamchat/shared";
import { toUserResource } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";

/** GET /users: every user of the organization, deactivated ones and bots included (as Zulip). */
export const getUsersHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.getUsers> =>
  async (params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { members: (await users.all(realm.id)).map((u) => toUserResource(u, actor, realm, params)) };
  };
