import type { BusClient, EventPublisher } from "@teamchat/shared";
import type { ApiKeyRepository } from "./api-keys/api-key.repository";
import type { InvitationRepository } from "./invitations/invitation.repository";
import type { InvitationMailer } from "./invitations/mail";
import type { LoginAttemptRepository } from "./login-attempts/login-attempt.repository";
import type { RealmUserDefaults } from "./user-defaults/realm-user-defaults";
import type { NavigationViewRepository } from "./navigation-views/navigation-view.repository";
import type { Presences } from "./presence/presences";
import type { UserGroupRepository } from "./user-groups/user-group.repository";
import type { UserDirectory } from "./users/user-directory";

/** Everything identity's handlers may use; each takes only its own `Deps<...>` of it, so its signature says what it touches. */
export interface IdentityDeps {
  users: UserDirectory;
  groups: UserGroupRepository;
  keys: ApiKeyRepository;
  attempts: LoginAttemptRepository;
  userDefaults: RealmUserDefaults;
  navigationViews: NavigationViewRepository;
  invitations: InvitationRepository;
  mailer: InvitationMailer;
  /** how long invitations last when the inviter does not say (Zulip's INVITATION_LINK_VALIDITY_MINUTES) */
  invitationValidityMinutes: number;
  events: EventPublisher<"identity">;
  bus: BusClient;
  presence: Presences;
}

export type Deps<K extends keyof IdentityDeps> = Pick<IdentityDeps, K>;
