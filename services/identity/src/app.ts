import type { RunningService, ServiceDeps } from "@teamchat/shared";
import { openCollaborators } from "./collaborators";
import { registerUserOperations } from "./operations/users";
import { registerUserGroupOperations } from "./operations/user-groups";
import { registerAccountOperations } from "./operations/accounts";
import { registerBotOperations } from "./operations/bots";
import { registerVideoCallOperations } from "./operations/video-calls";
import { registerClientDeviceOperations } from "./operations/client-devices";
import { registerNavigationViewOperations } from "./operations/navigation-views";
import { registerPresenceOperations } from "./operations/presence";
import { registerInvitationOperations } from "./operations/invitations";
import { registerOnboardingStepOperations } from "./operations/onboarding-steps";
import { registerPushDeviceOperations } from "./operations/push-devices";
import { registerAvatarOperations } from "./operations/avatars";
import { registerStateOperation } from "./operations/register-state";
import { startPushNotifications } from "./push-notifications/push-notifications";
import { backfillUserGroupCopies } from "./user-groups/user-groups-backfill";
import { dropProfileFieldValues } from "./users/profile-field-values";

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
  // how long invitations last when the inviter does not say (Zulip's INVITATION_LINK_VALIDITY_MINUTES)
  const invitationValidityMinutes = config.INVITATION_LINK_VALIDITY_MINUTES;
  // scrypt's work factor for new password hashes, log2 of its N
  const passwordHashCost = config.PASSWORD_HASH_COST;
  const collaborators = await openCollaborators({ db, nc, config, log, bus, events, metrics });
  const { userRepository, users, userLists, presenceStore, channels, subscriptions, groups } = collaborators;
  const { groupLists, keys, attempts, userDefaults, navigationViews, viewLists, invitations, mailer } = collaborators;
  const { loginMail, presence, onboardingSteps, signingKeys, devices, deviceLists, onboardingLists } = collaborators;
  const { pushDevices, pushDeviceLists, pushTokens, realmEmoji, files, avatarFiles, unsubscribeKeys } = collaborators;
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
  registerUserOperations(server, {
    users,
    keys,
    attempts,
    loginMail,
    presence,
    presenceStore,
    unsubscribeKeys,
    userDefaults,
    groups,
    events,
    bus,
    passwordHashCost,
  });
  registerUserGroupOperations(server, { users, groups, channels, events, bus });
  registerAccountOperations(server, { users, keys, userDefaults, groups, invitations, events, bus });
  registerBotOperations(server, { users, keys, userDefaults, groups, invitations, events, bus });
  registerVideoCallOperations(server, { signingKeys });
  registerClientDeviceOperations(server, { devices, events });
  registerNavigationViewOperations(server, { navigationViews, events });
  registerPresenceOperations(server, { users, presence, realmEmoji, events });
  registerInvitationOperations(server, {
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
  });
  registerOnboardingStepOperations(server, { onboardingSteps, events });
  registerPushDeviceOperations(server, {
    pushDevices,
    pushTokens,
    notifier,
    queueRegistration: push?.queueRegistration,
    events,
  });
  registerAvatarOperations(server, { users, files, avatarFiles, events, bus });
  registerStateOperation(server, {
    users,
    userLists,
    keys,
    presence,
    userDefaults,
    groups,
    groupLists,
    navigationViews,
    viewLists,
    onboardingSteps,
    onboardingLists,
    devices,
    deviceLists,
    pushDevices,
    pushDeviceLists,
  });
  return {
    // the work and the event-fed copies first, then the caches and the mail transport
    stop: async () => {
      await Promise.all([profileValueDrops.stop(), channels.stop(), subscriptions.stop(), push?.stop()]);
      collaborators.stop();
    },
  };
}
