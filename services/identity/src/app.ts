import { join } from "node:path";
import { IdAllocator, identity, registerStateHandler, type RunningService, type ServiceDeps } from "@teamchat/shared";
import { ApiKeyRepository } from "./api-keys/api-key.repository";
import type { IdentityDeps } from "./deps";
import { authenticateHandler } from "./handlers/authenticate";
import { createOwnerHandler } from "./handlers/create-owner";
import { createUserHandler } from "./handlers/create-user";
import { fetchApiKeyHandler } from "./handlers/fetch-api-key";
import { getOwnUserHandler } from "./handlers/get-own-user";
import { getUserByEmailHandler, getUserHandler } from "./handlers/get-user";
import { getUserSummariesHandler } from "./handlers/get-user-summaries";
import { getUsersHandler } from "./handlers/get-users";
import { updateSettingsHandler } from "./handlers/update-settings";
import { updateUserByEmailHandler, updateUserHandler } from "./handlers/update-user";
import { LoginAttemptRepository } from "./login-attempts/login-attempt.repository";
import { settingsState } from "./users/settings.state";
import { UserDirectory } from "./users/user-directory";
import { UserRepository } from "./users/user.repository";
import { usersState } from "./users/users.state";
import { UserGroupRepository } from "./user-groups/user-group.repository";
import { userGroupsState } from "./user-groups/user-groups.state";
import { createUserGroupHandler } from "./handlers/create-user-group";
import { deactivateUserGroupHandler } from "./handlers/deactivate-user-group";
import {
  getIsUserGroupMemberHandler,
  getUserGroupMembersHandler,
  getUserGroupMembershipsHandler,
  getUserGroupsHandler,
  getUserGroupSubgroupsHandler,
} from "./handlers/get-user-groups";
import { updateUserGroupHandler } from "./handlers/update-user-group";
import { updateUserGroupMembersHandler, updateUserGroupSubgroupsHandler } from "./handlers/update-user-group-members";
import { acceptInvitationHandler } from "./handlers/accept-invitation";
import { createInviteLinkHandler } from "./handlers/create-invite-link";
import { getInvitesHandler } from "./handlers/get-invites";
import { resendInviteHandler } from "./handlers/resend-invite";
import { revokeInviteHandler, revokeInviteLinkHandler } from "./handlers/revoke-invite";
import { sendInvitesHandler } from "./handlers/send-invites";
import { InvitationRepository } from "./invitations/invitation.repository";
import { FileInvitationMailer } from "./invitations/mail";

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildIdentity(deps: ServiceDeps<"identity">): Promise<RunningService> {
  const ids = new IdAllocator(deps.db);
  const users = new UserRepository(deps.db, ids);
  const id: IdentityDeps = {
    users: new UserDirectory(users, deps.events, deps.nc, deps.log),
    groups: new UserGroupRepository(deps.db, ids),
    keys: new ApiKeyRepository(deps.db),
    attempts: new LoginAttemptRepository(deps.db),
    invitations: new InvitationRepository(deps.db, ids),
    // the development transport; another InvitationMailer (SMTP) plugs in here
    mailer: new FileInvitationMailer(
      deps.config.INVITATION_MAIL_DIR ?? join(deps.config.TEAMCHAT_DATA_DIR, "invitation-mail"),
      deps.log,
    ),
    invitationValidityMinutes: deps.config.INVITATION_LINK_VALIDITY_MINUTES,
    events: deps.events,
    bus: deps.bus,
  };
  await Promise.all([users.init(), id.groups.init(), id.keys.init(), id.attempts.init(), id.invitations.init()]);

  const updateSettings = updateSettingsHandler(id);
  deps.server
    .handle(identity.authenticate, authenticateHandler(id))
    .handle(identity.createOwner, createOwnerHandler(id))
    .handle(identity.fetchApiKey, fetchApiKeyHandler(id))
    .handle(identity.getOwnUser, getOwnUserHandler(id))
    .handle(identity.getUserSummaries, getUserSummariesHandler(id))
    .handle(identity.createUser, createUserHandler(id))
    .handle(identity.getUsers, getUsersHandler(id))
    .handle(identity.getUser, getUserHandler(id))
    .handle(identity.getUserByEmail, getUserByEmailHandler(id))
    .handle(identity.updateUser, updateUserHandler(id))
    .handle(identity.updateUserByEmail, updateUserByEmailHandler(id))
    .handle(identity.updateSettings, updateSettings)
    .handle(identity.updateDisplaySettings, updateSettings)
    .handle(identity.updateNotificationSettings, updateSettings)
    .handle(identity.createUserGroup, createUserGroupHandler(id))
    .handle(identity.getUserGroups, getUserGroupsHandler(id))
    .handle(identity.updateUserGroup, updateUserGroupHandler(id))
    .handle(identity.deactivateUserGroup, deactivateUserGroupHandler(id))
    .handle(identity.updateUserGroupMembers, updateUserGroupMembersHandler(id))
    .handle(identity.updateUserGroupSubgroups, updateUserGroupSubgroupsHandler(id))
    .handle(identity.getUserGroupMembers, getUserGroupMembersHandler(id))
    .handle(identity.getIsUserGroupMember, getIsUserGroupMemberHandler(id))
    .handle(identity.getUserGroupSubgroups, getUserGroupSubgroupsHandler(id))
    .handle(identity.getUserGroupMemberships, getUserGroupMembershipsHandler(id))
    .handle(identity.sendInvites, sendInvitesHandler(id))
    .handle(identity.getInvites, getInvitesHandler(id))
    .handle(identity.revokeInvite, revokeInviteHandler(id))
    .handle(identity.resendInvite, resendInviteHandler(id))
    .handle(identity.createInviteLink, createInviteLinkHandler(id))
    .handle(identity.revokeInviteLink, revokeInviteLinkHandler(id))
    .handle(identity.acceptInvitation, acceptInvitationHandler(id))
    .handle(
      identity.registerState,
      registerStateHandler(identity.registerState, [...usersState(id), ...userGroupsState(id), ...settingsState(id)]),
    );
  return { stop: () => id.users.stop() };
}
