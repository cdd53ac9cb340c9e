import { badRequest, identity, requireUser, type Handler } from "@teamchat/shared";
import { reactivateUser } from "../accounts/activation";
import { canAdminUser, checkCanCreateBot } from "../bots/bot-permissions";
import { changeBotOwner } from "../bots/bot-owner";
import type { Deps } from "../deps";
import { accessUserById } from "../users/access";

/**
 * POST /users/{user_id}/reactivate (Zulip's reactivate_user_backend): people by
 * administrators, bots also by their owner if they may still create such a
 * bot and no active user took its name. A bot whose owner is deactivated
 * passes to whoever reactivates it.
 */
export const reactivateUserHandler =
  (deps: Deps<"users" | "events" | "bus" | "keys" | "groups">): Handler<typeof identity.reactivateUser> =>
  async ({ user_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    let target = await accessUserById(deps.users, realm, user_id);
    if (!canAdminUser(actor, target)) throw badRequest("Insufficient permission");
    if (target.isActive) return {};
    if (target.isBot) {
      await checkCanCreateBot(deps, realm, actor, target.botType!, ctx);
      const taken = (await deps.users.all(realm.id)).some((u) => u.isActive && u.fullName === target.fullName);
      if (taken) {
        throw badRequest(
          `There is already an active bot named "${target.fullName}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`,
        );
      }
      const owner = target.botOwnerId === null ? null : await deps.users.byId(realm.id, target.botOwnerId);
      if (owner && !owner.isActive) target = await changeBotOwner(deps, realm, target, actor.userId, ctx.requestId);
    }
    await reactivateUser(deps, realm, target, ctx.requestId);
    return {};
  };
