import { Role, ZulipError, identity, requireUser, type Handler, type EventPublisher } from "@teamchat/shared";
import { deactivateUser } from "../accounts/activation";
import { caller } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { InvitationRepository } from "../invitations/invitation.repository";

/** Zulip's CannotDeactivateLastUserError: the entity says who the caller is the last of. */
const cannotDeactivateLast = (isLastOwner: boolean) => {
  const entity = isLastOwner ? "organization owner" : "user";
  return new ZulipError("CANNOT_DEACTIVATE_LAST_USER", `Cannot deactivate the only ${entity}.`, 400, {
    is_last_owner: isLastOwner,
    entity,
  });
};

/** DELETE /users/me (Zulip's deactivate_user_own_backend): neither the only active user nor the only owner. */
export const deactivateOwnUserHandler =
  (deps: {
    users: UserDirectory;
    events: EventPublisher<"identity">;
    invitations: InvitationRepository;
  }): Handler<typeof identity.deactivateOwnUser> =>
  async (_params, ctx) => {
    const { realm } = requireUser(ctx);
    const me = await caller(deps.users, ctx);
    const active = (await deps.users.all(realm.id)).filter((u) => u.isActive);
    if (active.length === 1) throw cannotDeactivateLast(false);
    if (me.role === Role.OWNER && !me.isBot && (await deps.users.activeOwnerCount(realm.id)) === 1) {
      throw cannotDeactivateLast(true);
    }
    await deactivateUser(deps, realm, me, ctx.requestId);
    return {};
  };
