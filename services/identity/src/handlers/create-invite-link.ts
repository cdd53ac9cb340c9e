import {
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
  joinLink,
  newConfirmationKey,
  publishInvitesChanged,
  requireInvitePermission,
} from "../invitations/access";
import { loadRealmGroups } from "../user-groups/access";
import { requireMemberOrAdmin } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { InvitationRepository } from "../invitations/invitation.repository";
import type { SubscriptionCopy } from "../subscriptions/subscription-copy";

/**
 * POST /invites/multiuse (Zulip's generate_multiuse_invite_backend): the
 * organization's create_multiuse_invite_group decides; the link is used by
 * anyone until it is revoked or expires.
 */
export const createInviteLinkHandler =
  (deps: {
    users: UserDirectory;
    groups: UserGroupRepository;
    invitations: InvitationRepository;
    events: EventPublisher<"identity">;
    bus: BusClient;
    invitationValidityMinutes: number;
    channels: ChannelCopy;
    subscriptions: SubscriptionCopy;
  }): Handler<typeof identity.createInviteLink> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const realmGroups = await loadRealmGroups(deps, realm.id);
    await requireInvitePermission(deps, realmGroups, actor, "create_multiuse_invite_group", ctx);
    checkRoleBasedPermissions(p.invite_as, actor);
    const groupIds = await checkInvitationTargets(deps, realmGroups, p, ctx);
    const now = new Date();
    const invitation = await deps.invitations.insert(realm.id, {
      isMultiuse: true,
      email: null,
      referrerId: actor.userId,
      invitedAs: p.invite_as,
      streamIds: [...new Set(p.stream_ids)],
      groupIds,
      includeRealmDefaultSubscriptions: p.include_realm_default_subscriptions,
      // Zulip's MultiuseInvite has no such choice: its referrer is told
      notifyReferrerOnJoin: true,
      welcomeMessageCustomText: p.welcome_message_custom_text,
      key: newConfirmationKey(),
      invitedAt: now,
      expiresAt: expiryDate(p.invite_expires_in_minutes, deps.invitationValidityMinutes, now),
      lastSentAt: null,
    });
    await publishInvitesChanged(deps, realm.id, actor.userId, ctx.requestId);
    return { invite_link: joinLink(realm, invitation.key) };
  };
