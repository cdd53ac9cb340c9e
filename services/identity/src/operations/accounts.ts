import { identity, type BusServer, type BusClient, type EventPublisher } from "@teamchat/shared";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import { deactivateOwnUserHandler } from "../handlers/deactivate-own-user";
import { deactivateUserHandler } from "../handlers/deactivate-user";
import { reactivateUserHandler } from "../handlers/reactivate-user";
import { regenerateApiKeyHandler } from "../handlers/regenerate-api-key";
import { updateRealmUserSettingsDefaultsHandler } from "../handlers/update-realm-user-settings-defaults";
import type { InvitationRepository } from "../invitations/invitation.repository";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { UserDirectory } from "../users/user-directory";

/**
 * A user's account: deactivation and reactivation, a new API key, and the organization's defaults for
 * new users.
 */
export function registerAccountOperations(
  server: BusServer,
  {
    users,
    keys,
    userDefaults,
    groups,
    invitations,
    events,
    bus,
  }: {
    users: UserDirectory;
    keys: ApiKeyRepository;
    userDefaults: RealmUserDefaults;
    groups: UserGroupRepository;
    invitations: InvitationRepository;
    events: EventPublisher<"identity">;
    bus: BusClient;
  },
): void {
  server
    .handle(identity.deactivateUser, deactivateUserHandler({ users, events, invitations }))
    .handle(identity.reactivateUser, reactivateUserHandler({ users, events, bus, keys, groups }))
    .handle(identity.deactivateOwnUser, deactivateOwnUserHandler({ users, events, invitations }))
    .handle(identity.regenerateApiKey, regenerateApiKeyHandler({ keys, events }))
    .handle(identity.updateRealmUserSettingsDefaults, updateRealmUserSettingsDefaultsHandler({ userDefaults }));
}
