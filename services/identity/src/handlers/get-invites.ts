import { isAdmin, requireUser, type Handler, type identity } from "@teamchat/shared";
import { inviteView, isExpired } from "../invitations/access";
import { requireMemberOrAdmin } from "../users/access";
import type { InvitationRepository } from "../invitations/invitation.repository";

/**
 * GET /invites (Zulip's do_get_invites_controlled_by_user): unexpired
 * invitations neither used nor revoked; administrators see the organization's,
 * others their own. Email invitations first, then reusable links.
 */
export const getInvitesHandler =
  ({ invitations }: { invitations: InvitationRepository }): Handler<typeof identity.getInvites> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const now = new Date();
    const visible = (await invitations.active(realm.id)).filter(
      (inv) => (isAdmin(actor) || inv.referrerId === actor.userId) && !isExpired(inv, now),
    );
    const byKind = (multiuse: boolean) =>
      visible.filter((inv) => inv.isMultiuse === multiuse).sort((a, b) => a.inviteId - b.inviteId);
    return { invites: [...byKind(false), ...byKind(true)].map((inv) => inviteView(inv, realm)) };
  };
