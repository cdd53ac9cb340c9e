import {
  badRequest,
  missingArgument,
  requireRealm,
  type Handler,
  type identity,
  type EventPublisher,
} from "@teamchat/shared";
import { isExpired, publishInvitesChanged } from "../invitations/access";
import { loadRealmGroups } from "../user-groups/access";
import { publishUserGroupEvent } from "../user-groups/events";
import { createHumanUser } from "../users/create-human-user";
import { checkFullName, isValidEmail } from "../users/full-name";
import { apiEmail } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { InvitationRepository } from "../invitations/invitation.repository";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";

/** The key of an accept link `<realm url>/join/<key>/`; a bare key is taken as it is. */
const JOIN_LINK = /\/join\/([^/]+)\/?$/;

interface AcceptDeps {
  users: UserDirectory;
  groups: UserGroupRepository;
  invitations: InvitationRepository;
  keys: ApiKeyRepository;
  events: EventPublisher<"identity">;
  userDefaults: RealmUserDefaults;
  passwordHashCost: number;
}

/**
 * POST /teamchat/invitations/accept: what Zulip's registration pages do with
 * an invitation's confirmation link (confirmation.get_object_from_key, then
 * do_create_user and process_new_human_user): the account gets the invited
 * role, joins the invitation's user groups, channels (and the default ones
 * when asked: the gateway has messaging do it with the reply's follow_up), and
 * the referrer is told when they asked, and Welcome Bot sends the
 * invitation's custom message (else the organization's). An email invitation
 * is used up; a reusable link stays until revoked or expired. Other pending
 * invitations of the address are revoked.
 */
export const acceptInvitationHandler =
  (deps: AcceptDeps): Handler<typeof identity.acceptInvitation> =>
  async (p, ctx) => {
    const realm = requireRealm(ctx);
    const key = JOIN_LINK.exec(p.key.trim())?.[1] ?? p.key.trim();
    const invitation = await deps.invitations.byKey(realm.id, key);
    if (!invitation) throw badRequest("We couldn't find your confirmation link in the system.");
    if (invitation.status !== "active" || isExpired(invitation, new Date())) {
      throw badRequest("The confirmation link has expired or been deactivated.");
    }
    let email = invitation.email;
    if (email === null) {
      if (p.email === undefined) throw missingArgument("email");
      if (!isValidEmail(p.email.trim())) throw badRequest("Enter a valid email address.");
      email = p.email.trim();
    } else if (p.email !== undefined && p.email.trim().toLowerCase() !== email.toLowerCase()) {
      throw badRequest("This invitation is for another email address.");
    }
    const fullName = checkFullName(p.full_name);

    const referrer = await deps.users.byId(realm.id, invitation.referrerId);
    const { user, followUp } = await createHumanUser(
      deps,
      realm,
      { email, fullName, password: p.password, role: invitation.invitedAs },
      ctx,
      {
        streamIds: invitation.streamIds,
        includeRealmDefaultSubscriptions: invitation.includeRealmDefaultSubscriptions,
        // Zulip tells an active referrer only
        referrerToNotify: invitation.notifyReferrerOnJoin && referrer?.isActive ? referrer.userId : null,
        welcomeMessageCustomText: invitation.welcomeMessageCustomText,
      },
    );
    if (!invitation.isMultiuse) await deps.invitations.end(realm.id, false, invitation.inviteId, "used");
    await deps.invitations.revokeOthersFor(realm.id, email.toLowerCase());

    // Groups deactivated or gone since the invitation was made are left out.
    const realmGroups = await loadRealmGroups(deps, realm.id);
    for (const groupId of invitation.groupIds) {
      const group = realmGroups.get(groupId);
      if (!group?.doc || group.doc.deactivated) continue;
      await deps.groups.changeMembership(realm.id, groupId, {
        add: { members: [user.userId], subgroups: [] },
        remove: { members: [], subgroups: [] },
      });
      publishUserGroupEvent(
        deps.events,
        realm.id,
        { type: "user_group", op: "add_members", group_id: groupId, user_ids: [user.userId] },
        ctx,
      );
    }

    await publishInvitesChanged(deps, realm.id, invitation.referrerId, ctx.requestId);
    ctx.log.info({ userId: user.userId, inviteId: invitation.inviteId }, "invitation accepted");
    return {
      user_id: user.userId,
      email: apiEmail(user, realm),
      api_key: await deps.keys.issue(realm.id, user.userId),
      follow_up: followUp,
    };
  };
