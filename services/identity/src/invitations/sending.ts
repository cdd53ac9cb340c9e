import { ZulipError, type ErrorExtra, type RealmRef } from "@teamchat/shared";
import { joinLink } from "./access";
import type { InvitationDoc } from "./invitation.schema";
import type { InvitationRepository } from "./invitation.repository";
import type { InvitationMailer } from "./mail";

/** Zulip's settings.INVITES_DEFAULT_REALM_DAILY_MAX: invitation mails an organization may send in a day. */
export const INVITES_DAILY_MAX = 3000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Zulip's InvitationError: INVITATION_FAILED with its fields. */
export const invitationFailed = (
  msg: string,
  errors: Array<[string, string, boolean]>,
  { sentInvitations, dailyLimitReached = false }: { sentInvitations: boolean; dailyLimitReached?: boolean },
): ZulipError =>
  new ZulipError("INVITATION_FAILED", msg, 400, {
    errors,
    sent_invitations: sentInvitations,
    license_limit_reached: false,
    daily_limit_reached: dailyLimitReached,
  } satisfies ErrorExtra);

/** Zulip's check_invite_limit: refuses sending `count` more mails when the day's count would pass the limit. */
export async function checkInviteLimit(
  deps: { invitations: InvitationRepository },
  realmId: number,
  count: number,
  now: Date,
): Promise<void> {
  const recent = await deps.invitations.sentSince(realmId, new Date(now.getTime() - DAY_MS));
  if (recent + count > INVITES_DAILY_MAX) {
    throw invitationFailed(
      "To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.",
      [],
      { sentInvitations: false, dailyLimitReached: true },
    );
  }
}

/** Zulip's do_send_user_invite_email: the mail, from the invitation's creator, with the accept link. */
export async function sendInvitationMail(
  deps: { mailer: InvitationMailer },
  realm: RealmRef,
  invitation: InvitationDoc,
  referrer: { fullName: string; deliveryEmail: string },
  sentAt: Date,
): Promise<void> {
  await deps.mailer.send({
    realmId: realm.id,
    inviteId: invitation.inviteId,
    to: invitation.email!,
    from: `noreply@${realm.host.split(":")[0]}`,
    referrerName: referrer.fullName,
    referrerEmail: referrer.deliveryEmail,
    realmName: realm.name,
    activateUrl: joinLink(realm, invitation.key),
    sentAt,
  });
}
