import { randomBytes } from "node:crypto";
import {
  Role,
  badRequest,
  identityEvents,
  isAdmin,
  isGuest,
  isOwner,
  canAddChannelSubscribers,
  canReadChannelContent,
  realmConfig,
  requireUser,
  type Actor,
  type BusClient,
  type ChannelCopy,
  type CopiedChannel,
  type EventPublisher,
  type HandlerContext,
  type RealmRef,
  type RoleValue,
  type identity,
  mustBeOwner,
} from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";
import type { SubscriptionCopy } from "../subscriptions/subscription-copy";
import { accessGroupForUpdate } from "../user-groups/access";
import type { RealmGroups } from "../user-groups/realm-groups";
import type { InvitationRepository } from "./invitation.repository";
import type { InvitationDoc } from "./invitation.schema";

/** In the invitation views Zulip raises this as a plain JsonableError (BAD_REQUEST). */
const mustBeAdministrator = () => badRequest("Must be an organization administrator");

/**
 * Zulip's check_role_based_permissions, except that a moderator may invite moderators (Zulip's code
 * asks for an administrator; see docs/zulip-compatibility.md):
 * only owners invite owners, and nobody invites to a role above their own (so
 * a moderator may invite moderators, as zulip.yaml's InviteRoleParameter says).
 */
export function checkRoleBasedPermissions(invitedAs: RoleValue, actor: Actor, { requireAdmin = false } = {}): void {
  if (invitedAs === Role.OWNER && !isOwner(actor)) throw mustBeOwner();
  if ((requireAdmin && !isAdmin(actor)) || invitedAs < actor.role) throw mustBeAdministrator();
}

/**
 * Zulip's can_invite_users_by_email / can_create_multiuse_invite_to_realm: the
 * organization's group setting, which never includes guests.
 */
export async function requireInvitePermission(
  deps: { bus: BusClient },
  realmGroups: RealmGroups,
  actor: Actor,
  setting: "can_invite_users_group" | "create_multiuse_invite_group",
  ctx: HandlerContext,
): Promise<void> {
  const settings = await deps.bus.request(realmConfig.getRealmSettings, {}, ctx);
  if (isGuest(actor) || !realmGroups.membership.includes(settings[setting], actor)) {
    throw badRequest("Insufficient permission");
  }
}

/** What an invitation gives besides its role, checked as Zulip's views do, in their order. */
export interface InvitationTargets {
  stream_ids: number[];
  group_ids?: number[] | undefined;
  welcome_message_custom_text: string | null;
}

/**
 * Zulip's access_streams_for_invite: each channel one the inviter may read
 * (else "Invalid channel ID {id}. No invites were sent."), then each a default
 * channel or one they may add subscribers to (FL 342). Channels and
 * subscriptions are messaging's, which sits above identity: they come from
 * identity's copies of them (ChannelCopy, SubscriptionCopy).
 */
async function checkInvitationChannels(
  deps: { bus: BusClient; channels: ChannelCopy; subscriptions: SubscriptionCopy },
  realmGroups: RealmGroups,
  streamIds: number[],
  ctx: HandlerContext,
): Promise<void> {
  const { realm, actor } = requireUser(ctx);
  if (streamIds.length === 0) return;
  const [mine, settings, byId] = await Promise.all([
    deps.subscriptions.subscribedStreamIds(realm.id, actor.userId),
    deps.bus.request(realmConfig.getRealmSettings, {}, ctx),
    deps.channels.byIds(realm.id, streamIds),
  ]);
  const groups = realmGroups.membership;
  const channels: CopiedChannel[] = [];
  for (const streamId of streamIds) {
    const ch = byId.get(streamId);
    if (!ch || ch.isArchived || !canReadChannelContent(actor, ch, mine.has(streamId), groups)) {
      throw badRequest(`Invalid channel ID ${streamId}. No invites were sent.`);
    }
    channels.push(ch);
  }
  if (channels.some((ch) => !ch.isDefault && !canAddChannelSubscribers(actor, ch, settings, groups))) {
    throw badRequest("You do not have permission to subscribe other users to channels.");
  }
}

/**
 * What an invitation gives besides its role, checked as Zulip's views do, in
 * their order: access_streams_for_invite, access_user_groups_for_invite (the
 * groups' can_add_members_group) and the administrators-only custom welcome text.
 */
export async function checkInvitationTargets(
  deps: { bus: BusClient; channels: ChannelCopy; subscriptions: SubscriptionCopy },
  realmGroups: RealmGroups,
  p: InvitationTargets,
  ctx: HandlerContext,
): Promise<number[]> {
  const { actor } = requireUser(ctx);
  await checkInvitationChannels(deps, realmGroups, p.stream_ids, ctx);
  const groupIds = [...new Set(p.group_ids ?? [])];
  for (const groupId of groupIds) {
    await accessGroupForUpdate(deps, realmGroups, groupId, "can_add_members_group", ctx);
  }
  if (p.welcome_message_custom_text !== null && !isAdmin(actor)) throw mustBeAdministrator();
  return groupIds;
}

/** When an invitation made now expires: null = never; omitted = the server's default. */
export function expiryDate(minutes: number | null | undefined, defaultMinutes: number, now: Date): Date | null {
  if (minutes === null) return null;
  const validity = minutes ?? defaultMinutes;
  // Zulip's create_confirmation_object takes any number of minutes; none or fewer would be expired already
  if (validity <= 0) throw badRequest("Invalid invite_expires_in_minutes");
  return new Date(now.getTime() + validity * 60_000);
}

export const isExpired = (invitation: InvitationDoc, now: Date): boolean =>
  invitation.expiresAt !== null && invitation.expiresAt.getTime() <= now.getTime();

/** Zulip's generate_key: 24 random characters, the confirmation link's key. */
export const newConfirmationKey = (): string => randomBytes(12).toString("hex");

/** Zulip's confirmation_url_for(INVITATION / MULTIUSE_INVITE): `<realm url>/join/<key>/`. */
export const joinLink = (realm: Pick<RealmRef, "uri">, key: string): string => `${realm.uri}/join/${key}/`;

const noSuchInvitation = () => badRequest("No such invitation");

/**
 * Zulip's access_invite_by_id / access_multiuse_invite_by_id: an invitation of
 * the organization that is not used up; someone else's needs an administrator
 * (an owner for an owner's invitation). A revoked link says so.
 */
export async function accessInvitationById(
  deps: { invitations: InvitationRepository },
  ctx: HandlerContext,
  isMultiuse: boolean,
  inviteId: number,
): Promise<InvitationDoc> {
  const { realm, actor } = requireUser(ctx);
  const invitation = await deps.invitations.byId(realm.id, isMultiuse, inviteId);
  if (!invitation || invitation.status === "used" || (!isMultiuse && invitation.status === "revoked")) {
    throw noSuchInvitation();
  }
  if (invitation.referrerId !== actor.userId) {
    checkRoleBasedPermissions(invitation.invitedAs, actor, { requireAdmin: true });
  }
  if (invitation.status === "revoked") throw badRequest("Invitation has already been revoked");
  return invitation;
}

/** Zulip's notify_invites_changed: to active administrators and the invitation's creator. */
export async function publishInvitesChanged(
  deps: { users: UserDirectory; events: EventPublisher<"identity"> },
  realmId: number,
  referrerId: number,
  requestId: string | undefined,
): Promise<void> {
  const admins = (await deps.users.all(realmId)).filter((u) => u.isActive && !u.isBot && isAdmin(u));
  const userIds = [...new Set([...admins.map((u) => u.userId), referrerId])].sort((a, b) => a - b);
  deps.events.publish(
    identityEvents.invitesChanged,
    { realmId, userIds, event: { type: "invites_changed" } },
    requestId,
  );
}

/** Zulip's PreregistrationInviteData / MultiuseInviteData. */
export function inviteView(invitation: InvitationDoc, realm: Pick<RealmRef, "uri">): identity.Invite {
  const common = {
    invited_by_user_id: invitation.referrerId,
    invited: Math.floor(invitation.invitedAt.getTime() / 1000),
    expiry_date: invitation.expiresAt ? Math.floor(invitation.expiresAt.getTime() / 1000) : null,
    id: invitation.inviteId,
    invited_as: invitation.invitedAs,
  };
  return invitation.isMultiuse
    ? { ...common, link_url: joinLink(realm, invitation.key), is_multiuse: true }
    : {
        email: invitation.email!,
        ...common,
        is_multiuse: false,
        notify_referrer_on_join: invitation.notifyReferrerOnJoin,
      };
}
