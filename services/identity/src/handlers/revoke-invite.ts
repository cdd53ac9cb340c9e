import { requireUser, type Handler, type HandlerContext, type identity, type EventPublisher } from "@teamchat/shared";
import { accessInvitationById, publishInvitesChanged } from "../invitations/access";
import { requireMemberOrAdmin } from "../users/access";
import type { InvitationRepository } from "../invitations/invitation.repository";
import type { UserDirectory } from "../users/user-directory";

interface RevokeDeps {
  invitations: InvitationRepository;
  users: UserDirectory;
  events: EventPublisher<"identity">;
}

/** Zulip's do_revoke_user_invite / do_revoke_multi_use_invite. */
async function revoke(deps: RevokeDeps, ctx: HandlerContext, isMultiuse: boolean, inviteId: number): Promise<void> {
  const { realm, actor } = requireUser(ctx);
  requireMemberOrAdmin(actor);
  const invitation = await accessInvitationById(deps, ctx, isMultiuse, inviteId);
  await deps.invitations.end(realm.id, isMultiuse, inviteId, "revoked");
  await publishInvitesChanged(deps, realm.id, invitation.referrerId, ctx.requestId);
}

/** DELETE /invites/{invite_id}. */
export const revokeInviteHandler =
  (deps: RevokeDeps): Handler<typeof identity.revokeInvite> =>
  async ({ invite_id }, ctx) => {
    await revoke(deps, ctx, false, invite_id);
    return {};
  };

/** DELETE /invites/multiuse/{invite_id}. */
export const revokeInviteLinkHandler =
  (deps: RevokeDeps): Handler<typeof identity.revokeInviteLink> =>
  async ({ invite_id }, ctx) => {
    await revoke(deps, ctx, true, invite_id);
    return {};
  };
