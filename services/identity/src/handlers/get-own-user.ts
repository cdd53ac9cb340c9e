import { identity, requireUser, type Handler } from "@teamchat/shared";
import { caller } from "../users/access";
import { toOwnUser } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";

export const getOwnUserHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.getOwnUser> =>
  async (_params, ctx) => {
    return toOwnUser(await caller(users, ctx), requireUser(ctx).realm);
  };
