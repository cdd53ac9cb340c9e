import { identity, requireUser, type Handler } from "@teamchat/shared";
import type { Deps } from "../deps";
import { caller } from "../users/access";
import { toOwnUser } from "../users/user-view";

export const getOwnUserHandler =
  ({ users }: Deps<"users">): Handler<typeof identity.getOwnUser> =>
  async (_params, ctx) => {
    return toOwnUser(await caller(users, ctx), requireUser(ctx).realm);
  };
