import { IdAllocator, identity, registerStateHandler, type RunningService, type ServiceDeps } from "@teamchat/shared";
import { ApiKeyRepository } from "./api-keys/api-key.repository";
import type { IdentityDeps } from "./deps";
import { authenticateHandler } from "./handlers/authenticate";
import { createOwnerHandler } from "./handlers/create-owner";
import { createUserHandler } from "./handlers/create-user";
import { fetchApiKeyHandler } from "./handlers/fetch-api-key";
import { getNotificationBotHandler } from "./handlers/get-notification-bot";
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

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildIdentity(deps: ServiceDeps<"identity">): Promise<RunningService> {
  const users = new UserRepository(deps.db, new IdAllocator(deps.db));
  const id: IdentityDeps = {
    users: new UserDirectory(users, deps.events, deps.nc, deps.log),
    keys: new ApiKeyRepository(deps.db),
    attempts: new LoginAttemptRepository(deps.db),
    events: deps.events,
    bus: deps.bus,
  };
  await Promise.all([users.init(), id.keys.init(), id.attempts.init()]);

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
    .handle(
      identity.registerState,
      registerStateHandler(identity.registerState, [...usersState(id), ...settingsState(id)]),
    );
  return { stop: () => id.users.stop() };
}
