import {
  badRequest,
  requireUser,
  type Handler,
  type identity,
  type EventPublisher,
  type BusClient,
  type ChannelCopy,
} from "@teamchat/shared";
import {
  checkInvitationTargets,
  checkRoleBasedPermissions,
  expiryDate,
  newConfirmationKey,
  publishInvitesChanged,
  requireInvitePermission,
} from "../invitations/access";
import { checkInviteLimit, invitationFailed, sendInvitationMail } from "../invitations/sending";
import { loadRealmGroups } from "../user-groups/access";
import { requireMemberOrAdmin } from "../users/access";
import { isValidEmail } from "../users/full-name";
import type { UserDirectory } from "../users/user-directory";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { InvitationRepository } from "../invitations/invitation.repository";
import type { InvitationMailer } from "../invitations/mail";
import type { SubscriptionCopy } from "../subscriptions/subscription-copy";

/**
 * Zulip's get_invitee_emails_set: addresses separated by commas or newlines,
 * `Name <address>` reduced to the address. Blank entries (a trailing comma)
 * are dropped, and an address given twice is invited once.
 */
export function parseInviteeEmails(raw: string): string[] {
  const byKey = new Map<string, string>();
  for (const entry of raw.split(/[,\n]/)) {
    const email = (/<(?<email>.*)>/.exec(entry)?.groups?.email ?? entry).trim();
    if (email !== "" && !byKey.has(email.toLowerCase())) byKey.set(email.toLowerCase(), email);
  }
  return [...byKey.values()];
}

interface SendInvitesDeps {
  users: UserDirectory;
  groups: UserGroupRepository;
  invitations: InvitationRepository;
  mailer: InvitationMailer;
  events: EventPublisher<"identity">;
  bus: BusClient;
  invitationValidityMinutes: number;
  channels: ChannelCopy;
  subscriptions: SubscriptionCopy;
}

/**
 * POST /invites (Zulip's invite_users_backend and do_invite_users): every
 * check before anything is written; invalid addresses send nothing; addresses
 * that already have accounts are skipped and reported (INVITATION_FAILED with
 * sent_invitations) while the others are invited.
 */
export const sendInvitesHandler =
  (deps: SendInvitesDeps): Handler<typeof identity.sendInvites> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const realmGroups = await loadRealmGroups(deps, realm.id);
    await requireInvitePermission(deps, realmGroups, actor, "can_invite_users_group", ctx);
    checkRoleBasedPermissions(p.invite_as, actor);
    if (p.invitee_emails === "") throw badRequest("You must specify at least one email address.");
    const emails = parseInviteeEmails(p.invitee_emails);
    if (emails.length === 0) throw badRequest("You must specify at least one email address.");
    const groupIds = await checkInvitationTargets(deps, realmGroups, p, ctx);
    const now = new Date();
    const expiresAt = expiryDate(p.invite_expires_in_minutes, deps.invitationValidityMinutes, now);
    await checkInviteLimit(deps, realm.id, emails.length, now);

    // Zulip's validate_email_is_valid, then get_existing_user_errors
    const invalid = emails
      .filter((e) => !isValidEmail(e))
      .map((e): [string, string, boolean] => [e, "Invalid address.", false]);
    const existing = await deps.users.byEmails(realm.id, emails.filter(isValidEmail));
    const skipped = existing.map((u): [string, string, boolean] => {
      const given = emails.find((e) => e.toLowerCase() === u.deliveryEmail.toLowerCase())!;
      return u.isActive ? [given, "Already has an account.", false] : [given, "Account has been deactivated.", true];
    });
    if (invalid.length > 0) {
      throw invitationFailed(
        "Some emails did not validate, so we didn't send any invitations.",
        [...invalid, ...skipped],
        {
          sentInvitations: false,
        },
      );
    }
    if (skipped.length === emails.length) {
      throw invitationFailed("We weren't able to invite anyone.", skipped, { sentInvitations: false });
    }

    const skippedEmails = new Set(skipped.map(([e]) => e));
    for (const email of emails.filter((e) => !skippedEmails.has(e))) {
      const invitation = await deps.invitations.insert(realm.id, {
        isMultiuse: false,
        email,
        referrerId: actor.userId,
        invitedAs: p.invite_as,
        streamIds: [...new Set(p.stream_ids)],
        groupIds,
        includeRealmDefaultSubscriptions: p.include_realm_default_subscriptions,
        notifyReferrerOnJoin: p.notify_referrer_on_join,
        welcomeMessageCustomText: p.welcome_message_custom_text,
        key: newConfirmationKey(),
        invitedAt: now,
        expiresAt,
        lastSentAt: now,
      });
      await sendInvitationMail(deps, realm, invitation, actor, now);
    }
    await publishInvitesChanged(deps, realm.id, actor.userId, ctx.requestId);
    if (skipped.length > 0) {
      throw invitationFailed(
        "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
        skipped,
        { sentInvitations: true },
      );
    }
    return {};
  };
