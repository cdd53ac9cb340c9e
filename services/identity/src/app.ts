import { join } from "node:path";
import {
  ChannelCopy,
  DURABLE_CONSUMERS,
  RealmEmojiSource,
  EventKeyedCache,
  IdAllocator,
  identity,
  identityEvents,
  registerStateHandler,
  type RunningService,
  type ServiceDeps,
} from "@teamchat/shared";
import { ApiKeyRepository } from "./api-keys/api-key.repository";
import { botsState } from "./bots/bots.state";
import type { IdentityDeps } from "./deps";
import { authenticateHandler } from "./handlers/authenticate";
import { createOwnerHandler } from "./handlers/create-owner";
import { createBotHandler } from "./handlers/create-bot";
import { createUserHandler } from "./handlers/create-user";
import { deactivateBotHandler } from "./handlers/deactivate-bot";
import { deactivateOwnUserHandler } from "./handlers/deactivate-own-user";
import { deactivateUserHandler } from "./handlers/deactivate-user";
import { fetchApiKeyHandler } from "./handlers/fetch-api-key";
import { getBotsHandler } from "./handlers/get-bots";
import { getNotificationBotHandler } from "./handlers/get-notification-bot";
import { getOwnUserHandler } from "./handlers/get-own-user";
import { getUserByEmailHandler, getUserHandler } from "./handlers/get-user";
import { getUserSummariesHandler } from "./handlers/get-user-summaries";
import { getRealmPresenceHandler } from "./handlers/get-realm-presence";
import { getUserPresenceHandler } from "./handlers/get-user-presence";
import { getUserStatusHandler } from "./handlers/get-user-status";
import { getUsersHandler } from "./handlers/get-users";
import { reactivateUserHandler } from "./handlers/reactivate-user";
import { regenerateApiKeyHandler } from "./handlers/regenerate-api-key";
import { regenerateBotApiKeyHandler } from "./handlers/regenerate-bot-api-key";
import { updateBotHandler } from "./handlers/update-bot";
import { updateRealmUserSettingsDefaultsHandler } from "./handlers/update-realm-user-settings-defaults";
import { updatePresenceHandler } from "./handlers/update-presence";
import { updateSettingsHandler } from "./handlers/update-settings";
import { updateStatusHandler } from "./handlers/update-status";
import { updateUserByEmailHandler, updateUserHandler } from "./handlers/update-user";
import { LoginAttemptRepository } from "./login-attempts/login-attempt.repository";
import { RealmUserDefaultRepository } from "./user-defaults/realm-user-default.repository";
import { RealmUserDefaults } from "./user-defaults/realm-user-defaults";
import { addNavigationViewHandler } from "./handlers/add-navigation-view";
import { getNavigationViewsHandler } from "./handlers/get-navigation-views";
import { removeNavigationViewHandler } from "./handlers/remove-navigation-view";
import { updateNavigationViewHandler } from "./handlers/update-navigation-view";
import { NavigationViewRepository } from "./navigation-views/navigation-view.repository";
import { navigationViewsState } from "./navigation-views/navigation-views.state";
import { PresenceStore } from "./presence/presence-store";
import { presenceState } from "./presence/presence.state";
import { Presences } from "./presence/presences";
import { statusState } from "./status/status.state";
import { settingsState } from "./users/settings.state";
import { UserDirectory } from "./users/user-directory";
import { dropProfileFieldValues } from "./users/profile-field-values";
import { backfillUserGroupCopies } from "./user-groups/user-groups-backfill";
import { SubscriptionCopy } from "./subscriptions/subscription-copy";
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
import { markOnboardingStepAsReadHandler } from "./handlers/mark-onboarding-step-as-read";
import {
  addAndroidRegIdHandler,
  addApnsDeviceTokenHandler,
  removeAndroidRegIdHandler,
  removeApnsDeviceTokenHandler,
} from "./handlers/push-device-tokens";
import { registerPushDeviceHandler } from "./handlers/register-push-device";
import { sendTestPushNotificationHandler } from "./handlers/send-test-push-notification";
import { OnboardingStepRepository } from "./onboarding-steps/onboarding-step.repository";
import { onboardingStepsState } from "./onboarding-steps/onboarding-steps";
import { PushDeviceRepository } from "./push-devices/push-device.repository";
import { PushDeviceTokenRepository } from "./push-devices/push-device-token.repository";
import { pushDevicesState } from "./push-devices/push-devices.state";

/** Cached over all organizations; the least recently used are dropped beyond these. */
const MAX_CACHED_GROUPS = 50_000;
const MAX_CACHED_VIEWS = 50_000;
const MAX_CACHED_ONBOARDING_LISTS = 50_000;

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildIdentity(deps: ServiceDeps<"identity">): Promise<RunningService> {
  const ids = new IdAllocator(deps.db);
  const users = new UserRepository(deps.db, ids);
  const userDefaults = new RealmUserDefaultRepository(deps.db);
  const directory = new UserDirectory(users, deps.events, deps.nc, deps.log);
  const presenceStore = await PresenceStore.open(deps.nc, deps.log, deps.config.NATS_STREAM_REPLICAS);
  // messaging's channels and subscriptions, which identity (below messaging) never asks for (docs/architecture.md)
  const channels = await ChannelCopy.start(deps.nc, deps.db, DURABLE_CONSUMERS.identityChannels, deps.log);
  const subscriptions = await SubscriptionCopy.start(deps.nc, deps.db, deps.log);
  const id: IdentityDeps = {
    users: directory,
    groups: new UserGroupRepository(deps.db, ids),
    groupLists: EventKeyedCache.listsByRealm(
      deps.nc,
      deps.log,
      identityEvents.userGroup,
      "user-group-lists",
      MAX_CACHED_GROUPS,
    ),
    keys: new ApiKeyRepository(deps.db),
    attempts: new LoginAttemptRepository(deps.db),
    userDefaults: new RealmUserDefaults(userDefaults, deps.events, deps.nc, deps.log),
    navigationViews: new NavigationViewRepository(deps.db, ids),
    viewLists: EventKeyedCache.listsByUser(
      deps.nc,
      deps.log,
      identityEvents.navigationView,
      "navigation-view-lists",
      MAX_CACHED_VIEWS,
    ),
    invitations: new InvitationRepository(deps.db, ids),
    // the development transport; another InvitationMailer (SMTP) plugs in here
    mailer: new FileInvitationMailer(
      deps.config.INVITATION_MAIL_DIR ?? join(deps.config.TEAMCHAT_DATA_DIR, "invitation-mail"),
      deps.log,
    ),
    invitationValidityMinutes: deps.config.INVITATION_LINK_VALIDITY_MINUTES,
    passwordHashCost: deps.config.PASSWORD_HASH_COST,
    events: deps.events,
    bus: deps.bus,
    presence: new Presences(presenceStore, directory, deps.events),
    onboardingSteps: new OnboardingStepRepository(deps.db),
    onboardingLists: EventKeyedCache.listsByUser(
      deps.nc,
      deps.log,
      identityEvents.onboardingSteps,
      "onboarding-step-lists",
      MAX_CACHED_ONBOARDING_LISTS,
    ),
    pushDevices: new PushDeviceRepository(deps.db),
    pushTokens: new PushDeviceTokenRepository(deps.db),
    pushBouncerUrl: deps.config.PUSH_NOTIFICATION_BOUNCER_URL,
    log: deps.log,
    realmEmoji: new RealmEmojiSource(deps.nc, deps.bus, deps.log),
    channels,
    subscriptions,
  };
  await Promise.all([
    users.init(),
    id.groups.init(),
    id.keys.init(),
    id.attempts.init(),
    userDefaults.init(),
    id.navigationViews.init(),
    id.invitations.init(),
    id.onboardingSteps.init(),
    id.pushDevices.init(),
    id.pushTokens.init(),
  ]);

  await backfillUserGroupCopies({ nc: deps.nc, db: deps.db, groups: id.groups, events: deps.events, log: deps.log });
  const profileValueDrops = await dropProfileFieldValues(users, deps.events, deps.nc, deps.log);
  const updateSettings = updateSettingsHandler(id);
  deps.server
    .handle(identity.authenticate, authenticateHandler(id))
    .handle(identity.createOwner, createOwnerHandler(id))
    .handle(identity.fetchApiKey, fetchApiKeyHandler(id))
    .handle(identity.getOwnUser, getOwnUserHandler(id))
    .handle(identity.getUserSummaries, getUserSummariesHandler(id))
    .handle(identity.getNotificationBot, getNotificationBotHandler(id))
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
    .handle(
      identity.deactivateUserGroup,
      deactivateUserGroupHandler({ groups: id.groups, users: id.users, events: deps.events, bus: deps.bus, channels }),
    )
    .handle(identity.updateUserGroupMembers, updateUserGroupMembersHandler(id))
    .handle(identity.updateUserGroupSubgroups, updateUserGroupSubgroupsHandler(id))
    .handle(identity.getUserGroupMembers, getUserGroupMembersHandler(id))
    .handle(identity.getIsUserGroupMember, getIsUserGroupMemberHandler(id))
    .handle(identity.getUserGroupSubgroups, getUserGroupSubgroupsHandler(id))
    .handle(identity.getUserGroupMemberships, getUserGroupMembershipsHandler(id))
    .handle(identity.deactivateUser, deactivateUserHandler(id))
    .handle(identity.reactivateUser, reactivateUserHandler(id))
    .handle(identity.deactivateOwnUser, deactivateOwnUserHandler(id))
    .handle(identity.regenerateApiKey, regenerateApiKeyHandler(id))
    .handle(identity.updateRealmUserSettingsDefaults, updateRealmUserSettingsDefaultsHandler(id))
    .handle(identity.createBot, createBotHandler(id))
    .handle(identity.getBots, getBotsHandler(id))
    .handle(identity.updateBot, updateBotHandler(id))
    .handle(identity.deactivateBot, deactivateBotHandler(id))
    .handle(identity.regenerateBotApiKey, regenerateBotApiKeyHandler(id))
    .handle(identity.listNavigationViews, getNavigationViewsHandler(id))
    .handle(identity.addNavigationView, addNavigationViewHandler(id))
    .handle(identity.updateNavigationView, updateNavigationViewHandler(id))
    .handle(identity.removeNavigationView, removeNavigationViewHandler(id))
    .handle(identity.updateStatus, updateStatusHandler(id))
    .handle(identity.getUserStatus, getUserStatusHandler(id))
    .handle(identity.updatePresence, updatePresenceHandler(id))
    .handle(identity.getRealmPresence, getRealmPresenceHandler(id))
    .handle(identity.getUserPresence, getUserPresenceHandler(id))
    .handle(identity.sendInvites, sendInvitesHandler(id))
    .handle(identity.getInvites, getInvitesHandler(id))
    .handle(identity.revokeInvite, revokeInviteHandler(id))
    .handle(identity.resendInvite, resendInviteHandler(id))
    .handle(identity.createInviteLink, createInviteLinkHandler(id))
    .handle(identity.revokeInviteLink, revokeInviteLinkHandler(id))
    .handle(identity.acceptInvitation, acceptInvitationHandler(id))
    .handle(identity.markOnboardingStepAsRead, markOnboardingStepAsReadHandler(id))
    .handle(identity.registerPushDevice, registerPushDeviceHandler(id))
    .handle(identity.addApnsDeviceToken, addApnsDeviceTokenHandler(id))
    .handle(identity.removeApnsDeviceToken, removeApnsDeviceTokenHandler(id))
    .handle(identity.addAndroidRegId, addAndroidRegIdHandler(id))
    .handle(identity.removeAndroidRegId, removeAndroidRegIdHandler(id))
    .handle(identity.sendTestPushNotification, sendTestPushNotificationHandler(id))
    .handle(
      identity.registerState,
      registerStateHandler(identity.registerState, [
        ...usersState(id),
        ...userGroupsState(id),
        ...botsState(id),
        ...presenceState(id),
        ...statusState(id),
        ...settingsState(id),
        ...navigationViewsState(id),
        ...onboardingStepsState(id),
        ...pushDevicesState(id),
      ]),
    );
  return {
    stop: async () => {
      await Promise.all([profileValueDrops.stop(), channels.stop(), subscriptions.stop()]);
      id.groupLists.stop();
      id.realmEmoji.stop();
      id.viewLists.stop();
      id.onboardingLists.stop();
      id.users.stop();
      id.userDefaults.stop();
      presenceStore.stop();
    },
  };
}
