import {
  ChannelCopy,
  DURABLE_CONSUMERS,
  FileStore,
  RealmEmojiSource,
  EventKeyedCache,
  IdAllocator,
  identity,
  identityEvents,
  mailTransportFromConfig,
  registerStateHandler,
  type RunningService,
  type ServiceDeps,
} from "@teamchat/shared";
import { ApiKeyRepository } from "./api-keys/api-key.repository";
import { botsState } from "./bots/bots.state";
import { authenticateHandler } from "./handlers/authenticate";
import { AvatarFileRepository } from "./avatars/avatar-file.repository";
import { deleteAvatarHandler, findAvatarHandler, openAvatarHandler, setAvatarHandler } from "./handlers/avatars";
import { createOwnerHandler } from "./handlers/create-owner";
import { createBotHandler } from "./handlers/create-bot";
import { createUserHandler } from "./handlers/create-user";
import { deactivateBotHandler } from "./handlers/deactivate-bot";
import { deactivateOwnUserHandler } from "./handlers/deactivate-own-user";
import { deactivateUserHandler } from "./handlers/deactivate-user";
import { fetchApiKeyHandler } from "./handlers/fetch-api-key";
import { getBotsHandler } from "./handlers/get-bots";
import { getSystemBotHandler } from "./handlers/get-system-bot";
import { getOwnUserHandler } from "./handlers/get-own-user";
import { getUserByEmailHandler, getUserHandler } from "./handlers/get-user";
import { getUserSummariesHandler } from "./handlers/get-user-summaries";
import { getNotificationRecipientsHandler } from "./handlers/get-notification-recipients";
import { getRealmPresenceHandler } from "./handlers/get-realm-presence";
import { getUserPresenceHandler } from "./handlers/get-user-presence";
import { getUserStatusHandler } from "./handlers/get-user-status";
import { getUsersHandler } from "./handlers/get-users";
import { reactivateUserHandler } from "./handlers/reactivate-user";
import { regenerateApiKeyHandler } from "./handlers/regenerate-api-key";
import { regenerateBotApiKeyHandler } from "./handlers/regenerate-bot-api-key";
import { getBotApiKeyHandler } from "./handlers/get-bot-api-key";
import { createBigBlueButtonCallHandler, createWebexCallHandler, createZoomCallHandler } from "./handlers/video-calls";
import { CallSigningKeyRepository } from "./video-calls/call-signing-key.repository";
import { registerClientDeviceHandler, removeClientDeviceHandler } from "./handlers/client-devices";
import { DeviceRepository } from "./devices/device.repository";
import { devicesState, type DeviceLists } from "./devices/devices.state";
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
import { navigationViewsState, type NavigationViewLists } from "./navigation-views/navigation-views.state";
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
import { RealmUserLists } from "./users/realm-user-lists";
import { usersState } from "./users/users.state";
import { UserGroupRepository } from "./user-groups/user-group.repository";
import { userGroupsState, type UserGroupLists } from "./user-groups/user-groups.state";
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
import { TransportInvitationMailer } from "./invitations/mail";
import { LoginMailer } from "./users/login-mail";
import { UnsubscribeKeyRepository } from "./unsubscribe/unsubscribe-key.repository";
import { getUnsubscribeLinkHandler, unsubscribeByLinkHandler } from "./handlers/unsubscribe";
import { markOnboardingStepAsReadHandler } from "./handlers/mark-onboarding-step-as-read";
import {
  addAndroidRegIdHandler,
  addApnsDeviceTokenHandler,
  removeAndroidRegIdHandler,
  removeApnsDeviceTokenHandler,
} from "./handlers/push-device-tokens";
import { registerPushDeviceHandler } from "./handlers/register-push-device";
import { sendTestPushNotificationHandler } from "./handlers/send-test-push-notification";
import { sendE2eeTestPushNotificationHandler } from "./handlers/send-e2ee-test-push-notification";
import { exportUserGroupsHandler, exportUsersHandler, getExportConsentsHandler } from "./handlers/realm-export";
import { importUsersHandler } from "./handlers/import-users";
import { OnboardingStepRepository } from "./onboarding-steps/onboarding-step.repository";
import { onboardingStepsState, type OnboardingStepLists } from "./onboarding-steps/onboarding-steps";
import { PushDeviceRepository } from "./push-devices/push-device.repository";
import { PushDeviceTokenRepository } from "./push-devices/push-device-token.repository";
import { pushDevicesState, type PushDeviceLists } from "./push-devices/push-devices.state";
import { startPushNotifications } from "./push-notifications/push-notifications";

/** Cached over all organizations; the least recently used are dropped beyond these. */
const MAX_CACHED_GROUPS = 50_000;
const MAX_CACHED_VIEWS = 50_000;
const MAX_CACHED_ONBOARDING_LISTS = 50_000;
const MAX_CACHED_DEVICES = 50_000;
const MAX_CACHED_PUSH_DEVICES = 50_000;

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildIdentity({
  db,
  nc,
  config,
  log,
  bus,
  events,
  server,
  metrics,
}: ServiceDeps<"identity">): Promise<RunningService> {
  const ids = new IdAllocator(db);
  const userRepository = new UserRepository(db, ids);
  const userDefaultRepository = new RealmUserDefaultRepository(db);
  const users = new UserDirectory(userRepository, events, nc, log);
  const userLists = new RealmUserLists(users, nc, log);
  const presenceStore = await PresenceStore.open(nc, log, config.NATS_STREAM_REPLICAS);
  // messaging's channels and subscriptions, which identity (below messaging) never asks for (docs/architecture.md)
  const channels = await ChannelCopy.start(nc, db, DURABLE_CONSUMERS.identityChannels, log);
  const subscriptions = await SubscriptionCopy.start(nc, db, log);
  const groups = new UserGroupRepository(db, ids);
  const groupLists: UserGroupLists = EventKeyedCache.listsByRealm(
    nc,
    log,
    identityEvents.userGroup,
    "user-group-lists",
    MAX_CACHED_GROUPS,
  );
  const keys = new ApiKeyRepository(db);
  const attempts = new LoginAttemptRepository(db);
  const userDefaults = new RealmUserDefaults(userDefaultRepository, events, nc, log);
  const navigationViews = new NavigationViewRepository(db, ids);
  const viewLists: NavigationViewLists = EventKeyedCache.listsByUser(
    nc,
    log,
    identityEvents.navigationView,
    "navigation-view-lists",
    MAX_CACHED_VIEWS,
  );
  const invitations = new InvitationRepository(db, ids);
  const mailTransport = mailTransportFromConfig(config, log);
  const mailer = new TransportInvitationMailer(mailTransport, log, metrics);
  // how long invitations last when the inviter does not say (Zulip's INVITATION_LINK_VALIDITY_MINUTES)
  const invitationValidityMinutes = config.INVITATION_LINK_VALIDITY_MINUTES;
  // scrypt's work factor for new password hashes, log2 of its N
  const passwordHashCost = config.PASSWORD_HASH_COST;
  const presence = new Presences(presenceStore, users, events);
  const onboardingSteps = new OnboardingStepRepository(db);
  const signingKeys = new CallSigningKeyRepository(db);
  const devices = new DeviceRepository(db, ids);
  const deviceLists: DeviceLists = EventKeyedCache.listsByUser(
    nc,
    log,
    identityEvents.device,
    "device-lists",
    MAX_CACHED_DEVICES,
  );
  const onboardingLists: OnboardingStepLists = EventKeyedCache.listsByUser(
    nc,
    log,
    identityEvents.onboardingSteps,
    "onboarding-step-lists",
    MAX_CACHED_ONBOARDING_LISTS,
  );
  // end-to-end encrypted push registrations, and the legacy APNs / FCM tokens
  const pushDevices = new PushDeviceRepository(db);
  const pushDeviceLists: PushDeviceLists = EventKeyedCache.listsByUser(
    nc,
    log,
    identityEvents.pushDevice,
    "push-device-lists",
    MAX_CACHED_PUSH_DEVICES,
  );
  // a registration, and the bouncer's deletions, publish no client event (as in Zulip) but this one
  pushDeviceLists.alsoDroppedBy(identityEvents.pushDevicesChanged);
  const pushTokens = new PushDeviceTokenRepository(db);
  // the organization's custom emoji, for statuses (dropped on realm_emoji events)
  const realmEmoji = new RealmEmojiSource(nc, bus, log);
  // uploaded avatars: their images' bytes in chunks (docs/adr/0021-files-in-database-chunks.md), and where each is
  const files = new FileStore(db);
  const fileChunks = files.handlers();
  const avatarFiles = new AvatarFileRepository(db);
  const unsubscribeKeys = new UnsubscribeKeyRepository(db);
  await Promise.all([
    userRepository.init(),
    groups.init(),
    keys.init(),
    attempts.init(),
    userDefaultRepository.init(),
    navigationViews.init(),
    invitations.init(),
    onboardingSteps.init(),
    signingKeys.init(),
    devices.init(),
    pushDevices.init(),
    pushTokens.init(),
    files.init(),
    avatarFiles.init(),
    unsubscribeKeys.init(),
  ]);
  // through the push notification service, when configured: the notifier and its work queue consumer
  const push = await startPushNotifications({
    db,
    nc,
    bus,
    config,
    log,
    metrics,
    events,
    pushDevices,
    pushTokens,
    users,
  });
  const notifier = push?.notifier;

  await backfillUserGroupCopies({ nc, db, groups, events, log });
  const profileValueDrops = await dropProfileFieldValues(userRepository, events, nc, log);
  const updateSettings = updateSettingsHandler({ users, events, presence, passwordHashCost });
  server
    .handle(identity.authenticate, authenticateHandler({ users, keys }))
    .handle(identity.createOwner, createOwnerHandler({ users, keys, passwordHashCost }))
    .handle(
      identity.fetchApiKey,
      fetchApiKeyHandler({
        users,
        keys,
        attempts,
        loginMail: new LoginMailer(mailTransport, unsubscribeKeys, log, metrics),
      }),
    )
    .handle(identity.getOwnUser, getOwnUserHandler({ users }))
    .handle(identity.getUserSummaries, getUserSummariesHandler({ users }))
    .handle(identity.getNotificationRecipients, getNotificationRecipientsHandler({ users, presence: presenceStore }))
    .handle(identity.getUnsubscribeLink, getUnsubscribeLinkHandler({ keys: unsubscribeKeys }))
    .handle(identity.unsubscribeByLink, unsubscribeByLinkHandler({ keys: unsubscribeKeys, users, events, presence }))
    .handle(identity.getSystemBot, getSystemBotHandler({ users }))
    .handle(identity.createUser, createUserHandler({ users, events, userDefaults, passwordHashCost }))
    .handle(identity.getUsers, getUsersHandler({ users }))
    .handle(identity.getExportConsents, getExportConsentsHandler({ users }))
    .handle(identity.exportUsers, exportUsersHandler({ users }))
    .handle(identity.exportUserGroups, exportUserGroupsHandler({ groups }))
    .handle(identity.importUsers, importUsersHandler({ users }))
    .handle(identity.getUser, getUserHandler({ users }))
    .handle(identity.getUserByEmail, getUserByEmailHandler({ users }))
    .handle(identity.updateUser, updateUserHandler({ users, events, bus }))
    .handle(identity.updateUserByEmail, updateUserByEmailHandler({ users, events, bus }))
    .handle(identity.updateSettings, updateSettings)
    .handle(identity.updateDisplaySettings, updateSettings)
    .handle(identity.updateNotificationSettings, updateSettings)
    .handle(identity.createUserGroup, createUserGroupHandler({ groups, users, events, bus }))
    .handle(identity.getUserGroups, getUserGroupsHandler({ groups, users }))
    .handle(identity.updateUserGroup, updateUserGroupHandler({ groups, users, events, bus }))
    .handle(identity.deactivateUserGroup, deactivateUserGroupHandler({ groups, users, events, bus, channels }))
    .handle(identity.updateUserGroupMembers, updateUserGroupMembersHandler({ groups, users, events, bus }))
    .handle(identity.updateUserGroupSubgroups, updateUserGroupSubgroupsHandler({ groups, users, events, bus }))
    .handle(identity.getUserGroupMembers, getUserGroupMembersHandler({ groups, users }))
    .handle(identity.getIsUserGroupMember, getIsUserGroupMemberHandler({ groups, users }))
    .handle(identity.getUserGroupSubgroups, getUserGroupSubgroupsHandler({ groups, users }))
    .handle(identity.getUserGroupMemberships, getUserGroupMembershipsHandler({ groups }))
    .handle(identity.deactivateUser, deactivateUserHandler({ users, events, invitations }))
    .handle(identity.reactivateUser, reactivateUserHandler({ users, events, bus, keys, groups }))
    .handle(identity.deactivateOwnUser, deactivateOwnUserHandler({ users, events, invitations }))
    .handle(identity.regenerateApiKey, regenerateApiKeyHandler({ keys, events }))
    .handle(identity.updateRealmUserSettingsDefaults, updateRealmUserSettingsDefaultsHandler({ userDefaults }))
    .handle(identity.createBot, createBotHandler({ users, keys, events, bus, userDefaults, groups }))
    .handle(identity.getBots, getBotsHandler({ users, keys }))
    .handle(identity.updateBot, updateBotHandler({ users, events, keys, bus }))
    .handle(identity.deactivateBot, deactivateBotHandler({ users, events, invitations }))
    .handle(identity.regenerateBotApiKey, regenerateBotApiKeyHandler({ users, keys, events }))
    .handle(identity.getBotApiKey, getBotApiKeyHandler({ users, keys }))
    .handle(identity.createBigBlueButtonCall, createBigBlueButtonCallHandler({ signingKeys }))
    .handle(identity.createZoomCall, createZoomCallHandler)
    .handle(identity.createWebexCall, createWebexCallHandler)
    .handle(identity.registerClientDevice, registerClientDeviceHandler({ devices, events }))
    .handle(identity.removeClientDevice, removeClientDeviceHandler({ devices, events }))
    .handle(identity.listNavigationViews, getNavigationViewsHandler({ navigationViews }))
    .handle(identity.addNavigationView, addNavigationViewHandler({ navigationViews, events }))
    .handle(identity.updateNavigationView, updateNavigationViewHandler({ navigationViews, events }))
    .handle(identity.removeNavigationView, removeNavigationViewHandler({ navigationViews, events }))
    .handle(identity.updateStatus, updateStatusHandler({ users, events, presence, realmEmoji }))
    .handle(identity.getUserStatus, getUserStatusHandler({ users }))
    .handle(identity.updatePresence, updatePresenceHandler({ users, presence }))
    .handle(identity.getRealmPresence, getRealmPresenceHandler({ presence }))
    .handle(identity.getUserPresence, getUserPresenceHandler({ users, presence }))
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
    )
    .handle(identity.markOnboardingStepAsRead, markOnboardingStepAsReadHandler({ onboardingSteps, events }))
    .handle(
      identity.registerPushDevice,
      registerPushDeviceHandler({ pushDevices, events, queueRegistration: push?.queueRegistration }),
    )
    .handle(identity.addApnsDeviceToken, addApnsDeviceTokenHandler({ pushTokens, notifier }))
    .handle(identity.removeApnsDeviceToken, removeApnsDeviceTokenHandler({ pushTokens, notifier }))
    .handle(identity.addAndroidRegId, addAndroidRegIdHandler({ pushTokens, notifier }))
    .handle(identity.removeAndroidRegId, removeAndroidRegIdHandler({ pushTokens, notifier }))
    .handle(identity.sendTestPushNotification, sendTestPushNotificationHandler({ pushTokens, notifier }))
    .handle(identity.sendE2eeTestPushNotification, sendE2eeTestPushNotificationHandler({ pushDevices, notifier }))
    .handle(identity.avatarFiles.putChunk, fileChunks.put)
    .handle(identity.avatarFiles.readChunk, fileChunks.read)
    .handle(identity.setAvatar, setAvatarHandler({ users, events, bus, files, avatarFiles }))
    .handle(identity.deleteAvatar, deleteAvatarHandler({ users, events, bus, files, avatarFiles }))
    .handle(identity.findAvatar, findAvatarHandler({ users }))
    .handle(identity.openAvatar, openAvatarHandler({ avatarFiles }))
    .handle(
      identity.registerState,
      registerStateHandler(identity.registerState, [
        ...usersState({ users, lists: userLists }),
        ...userGroupsState({ groupLists, groups, users }),
        ...botsState({ users, keys }),
        ...presenceState({ presence }),
        ...statusState({ users }),
        ...settingsState({ users, userDefaults }),
        ...navigationViewsState({ navigationViews, viewLists }),
        ...onboardingStepsState({ onboardingSteps, onboardingLists }),
        ...pushDevicesState({ pushDevices, pushDeviceLists }),
        ...devicesState({ devices, deviceLists }),
      ]),
    );
  return {
    stop: async () => {
      await Promise.all([profileValueDrops.stop(), channels.stop(), subscriptions.stop(), push?.stop()]);
      groupLists.stop();
      realmEmoji.stop();
      viewLists.stop();
      onboardingLists.stop();
      deviceLists.stop();
      pushDeviceLists.stop();
      users.stop();
      userLists.stop();
      userDefaults.stop();
      presenceStore.stop();
      mailTransport.close();
    },
  };
}
