import { identity, requireUser, type Handler } from "@teamchat/shared";
import type { Identity } from "../context";
import { toOwnUser } from "../users/user-view";

export const getOwnUserHandler =
  ({ users }: Pick<Identity, "users">): Handler<typeof identity.getOwnUser> =>
  async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return toOwnUser((await users.byId(realm.id, actor.userId))!, realm);
  };
