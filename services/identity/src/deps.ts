import type {
  BusClient,
  EventKeyedCache,
  EventPublisher,
  Logger,
  ChannelCopy,
  RealmEmojiSource,
  identity,
  identityEvents,
} from "@teamchat/shared";
import type { ApiKeyRepository } from "./api-keys/api-key.repository";
import type { InvitationRepository } from "./invitations/invitation.repository";
import type { InvitationMailer } from "./invitations/mail";
import type { LoginAttemptRepository } from "./login-attempts/login-attempt.repository";
import type { RealmUserDefaults } from "./user-defaults/realm-user-defaults";
import type { NavigationViewDoc } from "./navigation-views/navigation-view.schema";
import type { NavigationViewRepository } from "./navigation-views/navigation-view.repository";
import type { OnboardingStepRepository } from "./onboarding-steps/onboarding-step.repository";
import type { PushDeviceRepository } from "./push-devices/push-device.repository";
import type { PushDeviceTokenRepository } from "./push-devices/push-device-token.repository";
import type { Presences } from "./presence/presences";
import type { UserGroupRepository } from "./user-groups/user-group.repository";
import type { UserGroupDoc } from "./user-groups/user-group.schema";
import type { UserDirectory } from "./users/user-directory";
import type { SubscriptionCopy } from "./subscriptions/subscription-copy";

/** Everything identity's handlers may use; each takes only its own `Deps<...>` of it, so its signature says what it touches. */
export interface IdentityDeps {
  users: UserDirectory;
  groups: UserGroupRepository;
  /** each organization's stored groups, for register (dropped on user_group events) */
  groupLists: EventKeyedCache<UserGroupDoc[], typeof identityEvents.userGroup.payload>;
  keys: ApiKeyRepository;
  attempts: LoginAttemptRepository;
  userDefaults: RealmUserDefaults;
  navigationViews: NavigationViewRepository;
  /** each user's views, for register (dropped on navigation_view events) */
  viewLists: EventKeyedCache<NavigationViewDoc[], typeof identityEvents.navigationView.payload>;
  invitations: InvitationRepository;
  mailer: InvitationMailer;
  /** scrypt's work factor for new password hashes, log2 of its N (PASSWORD_HASH_COST) */
  passwordHashCost: number;
  /** how long invitations last when the inviter does not say (Zulip's INVITATION_LINK_VALIDITY_MINUTES) */
  invitationValidityMinutes: number;
  events: EventPublisher<"identity">;
  bus: BusClient;
  presence: Presences;
  onboardingSteps: OnboardingStepRepository;
  /** each user's next onboarding steps, for register (dropped on onboarding_steps events) */
  onboardingLists: EventKeyedCache<identity.OnboardingStep[], typeof identityEvents.onboardingSteps.payload>;
  /** E2EE push registrations (E12) */
  pushDevices: PushDeviceRepository;
  /** legacy APNs / FCM tokens */
  pushTokens: PushDeviceTokenRepository;
  /** the push notification service's URL (PUSH_NOTIFICATION_BOUNCER_URL); undefined: push is not configured */
  pushBouncerUrl: string | undefined;
  log: Logger;
  /** the organization's custom emoji, for statuses (dropped on realm_emoji events) */
  realmEmoji: RealmEmojiSource;
  /** identity's copies of messaging's channels and subscriptions, which it never asks messaging for */
  channels: ChannelCopy;
  subscriptions: SubscriptionCopy;
}

export type Deps<K extends keyof IdentityDeps> = Pick<IdentityDeps, K>;
