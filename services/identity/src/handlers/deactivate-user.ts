import {
  Role,
  badRequest,
  identity,
  isOwner,
  requireUser,
  type Handler,
  mustBeOwner,
  type EventPublisher,
} from "@teamchat/shared";
import { deactivateUser } from "../accounts/activation";
import { canAdminUser } from "../bots/bot-permissions";
import { accessUserById } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { InvitationRepository } from "../invitations/invitation.repository";

/**
 * DELETE /users/{user_id} (Zulip's deactivate_user_backend): administrators
 * deactivate people (bots go through DELETE /bots/{bot_id}); an owner only by
 * an owner, and never the last one. Zulip mails the user when
 * deactivation_notification_comment is given; this server sends no mail.
 */
export const deactivateUserHandler =
  (deps: {
    users: UserDirectory;
    events: EventPublisher<"identity">;
    invitations: InvitationRepository;
  }): Handler<typeof identity.deactivateUser> =>
  async ({ user_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const target = await accessUserById(deps.users, realm, user_id);
    if (target.isBot) throw badRequest("No such user");
    if (!target.isActive) throw badRequest("User is deactivated");
    if (!canAdminUser(actor, target)) throw badRequest("Insufficient permission");
    if (target.role === Role.OWNER && !isOwner(actor)) {
      throw mustBeOwner();
    }
    if (target.role === Role.OWNER && (await deps.users.activeOwnerCount(realm.id)) === 1) {
      throw badRequest("Cannot deactivate the only organization owner");
    }
    await deactivateUser(deps, realm, target, ctx.requestId);
    return {};
  };
