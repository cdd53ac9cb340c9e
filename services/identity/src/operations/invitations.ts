import { identity, type BusServer, type BusClient, type ChannelCopy, type EventPublisher } from "@teamchat/shared";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import { acceptInvitationHandler } from "../handlers/accept-invitation";
import { createInviteLinkHandler } from "../handlers/create-invite-link";
import { getInvitesHandler } from "../handlers/get-invites";
import { resendInviteHandler } from "../handlers/resend-invite";
import { revokeInviteHandler, revokeInviteLinkHandler } from "../handlers/revoke-invite";
import { sendInvitesHandler } from "../handlers/send-invites";
import type { InvitationRepository } from "../invitations/invitation.repository";
import type { TransportInvitationMailer } from "../invitations/mail";
import type { SubscriptionCopy } from "../subscriptions/subscription-copy";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { UserDirectory } from "../users/user-directory";

/** Invitations: by email or link, their lists, revocation and resending, and their acceptance. */
export function registerInvitationOperations(
  server: BusServer,
  {
    users,
    keys,
    userDefaults,
    groups,
    channels,
    subscriptions,
    invitations,
    mailer,
    events,
    bus,
    passwordHashCost,
    invitationValidityMinutes,
  }: {
    users: UserDirectory;
    keys: ApiKeyRepository;
    userDefaults: RealmUserDefaults;
    groups: UserGroupRepository;
    channels: ChannelCopy;
    subscriptions: SubscriptionCopy;
    invitations: InvitationRepository;
    mailer: TransportInvitationMailer;
    events: EventPublisher<"identity">;
    bus: BusClient;
    /** scrypt's work factor for new password hashes, log2 of its N */
    passwordHashCost: number;
    /** how long invitations last when the inviter does not say (Zulip's INVITATION_LINK_VALIDITY_MINUTES) */
    invitationValidityMinutes: number;
  },
): void {
  server
    .handle(
      identity.sendInvites,
      sendInvitesHandler({
        users,
        groups,
        invitations,
        mailer,
        events,
        bus,
        invitationValidityMinutes,
        channels,
        subscriptions,
      }),
    )
    .handle(identity.getInvites, getInvitesHandler({ invitations }))
    .handle(identity.revokeInvite, revokeInviteHandler({ invitations, users, events }))
    .handle(identity.resendInvite, resendInviteHandler({ invitations, users, mailer }))
    .handle(
      identity.createInviteLink,
      createInviteLinkHandler({
        users,
        groups,
        invitations,
        events,
        bus,
        invitationValidityMinutes,
        channels,
        subscriptions,
      }),
    )
    .handle(identity.revokeInviteLink, revokeInviteLinkHandler({ invitations, users, events }))
    .handle(
      identity.acceptInvitation,
      acceptInvitationHandler({ users, groups, invitations, keys, events, userDefaults, passwordHashCost }),
    );
}
