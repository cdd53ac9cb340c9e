import { requireUser, type Handler, type identity } from "@teamchat/shared";
import { accessInvitationById } from "../invitations/access";
import { checkInviteLimit, sendInvitationMail } from "../invitations/sending";
import { requireMemberOrAdmin } from "../users/access";
import type { InvitationRepository } from "../invitations/invitation.repository";
import type { UserDirectory } from "../users/user-directory";
import type { InvitationMailer } from "../invitations/mail";

/**
 * POST /invites/{invite_id}/resend (Zulip's resend_user_invite_email): the
 * same link again, from the invitation's creator; it counts towards the
 * day's limit. The expiry does not change, as in Zulip.
 */
export const resendInviteHandler =
  (deps: {
    invitations: InvitationRepository;
    users: UserDirectory;
    mailer: InvitationMailer;
  }): Handler<typeof identity.resendInvite> =>
  async ({ invite_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const invitation = await accessInvitationById(deps, ctx, false, invite_id);
    const now = new Date();
    await checkInviteLimit(deps, realm.id, 1, now);
    const referrer = (await deps.users.byId(realm.id, invitation.referrerId)) ?? actor;
    await deps.invitations.recordSent(realm.id, invite_id, now);
    await sendInvitationMail(deps, realm, invitation, referrer, now);
    return {};
  };
