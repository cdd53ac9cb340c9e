import { identity, type BusServer, type BusClient, type EventPublisher } from "@teamchat/shared";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import { authenticateHandler } from "../handlers/authenticate";
import { createOwnerHandler } from "../handlers/create-owner";
import { createUserHandler } from "../handlers/create-user";
import { fetchApiKeyHandler } from "../handlers/fetch-api-key";
import { getNotificationRecipientsHandler } from "../handlers/get-notification-recipients";
import { getChannelNotificationUsersHandler } from "../handlers/get-channel-notification-users";
import { getOwnUserHandler } from "../handlers/get-own-user";
import { getSystemBotHandler } from "../handlers/get-system-bot";
import { getUserByEmailHandler, getUserHandler } from "../handlers/get-user";
import { getUserSummariesHandler } from "../handlers/get-user-summaries";
import { getUsersHandler } from "../handlers/get-users";
import { importUsersHandler } from "../handlers/import-users";
import { exportUserGroupsHandler, exportUsersHandler, getExportConsentsHandler } from "../handlers/realm-export";
import { getUnsubscribeLinkHandler, unsubscribeByLinkHandler } from "../handlers/unsubscribe";
import { updateSettingsHandler } from "../handlers/update-settings";
import { updateUserByEmailHandler, updateUserHandler } from "../handlers/update-user";
import type { LoginAttemptRepository } from "../login-attempts/login-attempt.repository";
import type { PresenceStore } from "../presence/presence-store";
import type { Presences } from "../presence/presences";
import type { UnsubscribeKeyRepository } from "../unsubscribe/unsubscribe-key.repository";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { LoginMailer } from "../users/login-mail";
import type { UserDirectory } from "../users/user-directory";

/**
 * Users: authentication and API keys by password, a user's own record and others', the settings, and
 * what other services and exports read of users.
 */
export function registerUserOperations(
  server: BusServer,
  {
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
  }: {
    users: UserDirectory;
    keys: ApiKeyRepository;
    attempts: LoginAttemptRepository;
    loginMail: LoginMailer;
    presence: Presences;
    presenceStore: PresenceStore;
    unsubscribeKeys: UnsubscribeKeyRepository;
    userDefaults: RealmUserDefaults;
    groups: UserGroupRepository;
    events: EventPublisher<"identity">;
    bus: BusClient;
    /** scrypt's work factor for new password hashes, log2 of its N */
    passwordHashCost: number;
  },
): void {
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
        loginMail,
      }),
    )
    .handle(identity.getOwnUser, getOwnUserHandler({ users }))
    .handle(identity.getUserSummaries, getUserSummariesHandler({ users }))
    .handle(identity.getNotificationRecipients, getNotificationRecipientsHandler({ users, presence: presenceStore }))
    .handle(identity.getChannelNotificationUsers, getChannelNotificationUsersHandler({ users }))
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
    .handle(identity.updateNotificationSettings, updateSettings);
}
