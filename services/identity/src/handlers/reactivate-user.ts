import { badRequest, identity, requireUser, type Handler, type EventPublisher, type BusClient } from "@teamchat/shared";
import { reactivateUser } from "../accounts/activation";
import { canAdminUser, checkCanCreateBot } from "../bots/bot-permissions";
import { changeBotOwner } from "../bots/bot-owner";
import { accessUserById } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import type { UserGroupRepository } from "../user-groups/user-group.repository";

/**
 * POST /users/{user_id}/reactivate (Zulip's reactivate_user_backend): people by
 * administrators, bots also by their owner if they may still create such a
 * bot and no active user took its name. A bot whose owner is deactivated
 * passes to whoever reactivates it.
 */
export const reactivateUserHandler =
  (deps: {
    users: UserDirectory;
    events: EventPublisher<"identity">;
    bus: BusClient;
    keys: ApiKeyRepository;
    groups: UserGroupRepository;
  }): Handler<typeof identity.reactivateUser> =>
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
