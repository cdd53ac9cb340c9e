import type { BusClient, EventPublisher } from "@teamchat/shared";
import type { InvitationRepository } from "./invitations/invitation.repository";
import type { RealmUserDefaults } from "./user-defaults/realm-user-defaults";
import type { UserGroupRepository } from "./user-groups/user-group.repository";
import type { UserDirectory } from "./users/user-directory";

/**
 * The collaborators still named through `Deps<...>` by user-group deactivation,
 * invitation access and human-user creation; every other module declares its own.
 */
interface IdentityCollaborators {
  users: UserDirectory;
  groups: UserGroupRepository;
  invitations: InvitationRepository;
  userDefaults: RealmUserDefaults;
  /** scrypt's work factor for new password hashes, log2 of its N (PASSWORD_HASH_COST) */
  passwordHashCost: number;
  events: EventPublisher<"identity">;
  bus: BusClient;
}

export type Deps<K extends keyof IdentityCollaborators> = Pick<IdentityCollaborators, K>;
