import type { NatsConnection } from "@nats-io/transport-node";
import {
  ChannelCopy,
  DURABLE_CONSUMERS,
  FileStore,
  RealmEmojiSource,
  EventKeyedCache,
  IdAllocator,
  identityEvents,
  mailTransportFromConfig,
  type BusClient,
  type Config,
  type Connection,
  type EventPublisher,
  type Logger,
  type ServiceMetrics,
} from "@teamchat/shared";
import { ApiKeyRepository } from "./api-keys/api-key.repository";
import { AvatarFileRepository } from "./avatars/avatar-file.repository";
import { CallSigningKeyRepository } from "./video-calls/call-signing-key.repository";
import { DeviceRepository } from "./devices/device.repository";
import type { DeviceLists } from "./devices/devices.state";
import { LoginAttemptRepository } from "./login-attempts/login-attempt.repository";
import { RealmUserDefaultRepository } from "./user-defaults/realm-user-default.repository";
import { RealmUserDefaults } from "./user-defaults/realm-user-defaults";
import { NavigationViewRepository } from "./navigation-views/navigation-view.repository";
import type { NavigationViewLists } from "./navigation-views/navigation-views.state";
import { PresenceStore } from "./presence/presence-store";
import { Presences } from "./presence/presences";
import { UserDirectory } from "./users/user-directory";
import { SubscriptionCopy } from "./subscriptions/subscription-copy";
import { UserRepository } from "./users/user.repository";
import { RealmUserLists } from "./users/realm-user-lists";
import { UserGroupRepository } from "./user-groups/user-group.repository";
import type { UserGroupLists } from "./user-groups/user-groups.state";
import { InvitationRepository } from "./invitations/invitation.repository";
import { TransportInvitationMailer } from "./invitations/mail";
import { LoginMailer } from "./users/login-mail";
import { UnsubscribeKeyRepository } from "./unsubscribe/unsubscribe-key.repository";
import { OnboardingStepRepository } from "./onboarding-steps/onboarding-step.repository";
import type { OnboardingStepLists } from "./onboarding-steps/onboarding-steps";
import { PushDeviceRepository } from "./push-devices/push-device.repository";
import { PushDeviceTokenRepository } from "./push-devices/push-device-token.repository";
import type { PushDeviceLists } from "./push-devices/push-devices.state";

/** Cached over all organizations; the least recently used are dropped beyond these. */
const MAX_CACHED_GROUPS = 50_000;
const MAX_CACHED_VIEWS = 50_000;
const MAX_CACHED_ONBOARDING_LISTS = 50_000;
const MAX_CACHED_DEVICES = 50_000;
const MAX_CACHED_PUSH_DEVICES = 50_000;

/** The connections and settings identity's collaborators are built from. */
interface Sources {
  db: Connection;
  nc: NatsConnection;
  config: Config;
  log: Logger;
  bus: BusClient;
  events: EventPublisher<"identity">;
  metrics: ServiceMetrics;
}

/**
 * Identity's repositories, caches, copies and mailers, built in the order they always were, with
 * their collections and indexes made. stop() stops the caches and closes the mail transport; the
 * event-fed copies of channels and subscriptions stop with the work, in the root.
 */
export async function openCollaborators(sources: Sources) {
  const built = await build(sources);
  await Promise.all([
    built.userRepository.init(),
    built.groups.init(),
    built.keys.init(),
    built.attempts.init(),
    built.userDefaultRepository.init(),
    built.navigationViews.init(),
    built.invitations.init(),
    built.onboardingSteps.init(),
    built.signingKeys.init(),
    built.devices.init(),
    built.pushDevices.init(),
    built.pushTokens.init(),
    built.files.init(),
    built.avatarFiles.init(),
    built.unsubscribeKeys.init(),
  ]);
  return {
    ...built,
    stop: () => {
      built.groupLists.stop();
      built.realmEmoji.stop();
      built.viewLists.stop();
      built.onboardingLists.stop();
      built.deviceLists.stop();
      built.pushDeviceLists.stop();
      built.users.stop();
      built.userLists.stop();
      built.userDefaults.stop();
      built.presenceStore.stop();
      built.mailTransport.close();
    },
  };
}

/** What openCollaborators builds, before the init() of its repositories. */
async function build({ db, nc, config, log, bus, events, metrics }: Sources) {
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
  const avatarFiles = new AvatarFileRepository(db);
  const unsubscribeKeys = new UnsubscribeKeyRepository(db);
  const loginMail = new LoginMailer(mailTransport, unsubscribeKeys, log, metrics);
  return {
    userRepository,
    userDefaultRepository,
    users,
    userLists,
    presenceStore,
    channels,
    subscriptions,
    groups,
    groupLists,
    keys,
    attempts,
    userDefaults,
    navigationViews,
    viewLists,
    invitations,
    mailer,
    loginMail,
    presence,
    onboardingSteps,
    signingKeys,
    devices,
    deviceLists,
    onboardingLists,
    pushDevices,
    pushDeviceLists,
    pushTokens,
    realmEmoji,
    files,
    avatarFiles,
    unsubscribeKeys,
    mailTransport,
  };
}
