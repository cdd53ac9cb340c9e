import { IdAllocator, identity, registerStateHandler, type RunningService, type ServiceDeps } from "@teamchat/shared";
import { ApiKeyRepository } from "./api-keys/api-key.repository";
import type { IdentityDeps } from "./deps";
import { authenticateHandler } from "./handlers/authenticate";
import { createOwnerHandler } from "./handlers/create-owner";
import { createUserHandler } from "./handlers/create-user";
import { fetchApiKeyHandler } from "./handlers/fetch-api-key";
import { getOwnUserHandler } from "./handlers/get-own-user";
import { getUserByEmailHandler, getUserHandler } from "./handlers/get-user";
import { getUserSummariesHandler } from "./handlers/get-user-summaries";
import { getRealmPresenceHandler } from "./handlers/get-realm-presence";
import { getUserPresenceHandler } from "./handlers/get-user-presence";
import { getUserStatusHandler } from "./handlers/get-user-status";
import { getUsersHandler } from "./handlers/get-users";
import { updatePresenceHandler } from "./handlers/update-presence";
import { updateSettingsHandler } from "./handlers/update-settings";
import { updateStatusHandler } from "./handlers/update-status";
import { updateUserByEmailHandler, updateUserHandler } from "./handlers/update-user";
import { LoginAttemptRepository } from "./login-attempts/login-attempt.repository";
import { PresenceStore } from "./presence/presence-store";
import { presenceState } from "./presence/presence.state";
import { Presences } from "./presence/presences";
import { statusState } from "./status/status.state";
import { settingsState } from "./users/settings.state";
import { UserDirectory } from "./users/user-directory";
import { UserRepository } from "./users/user.repository";
import { usersState } from "./users/users.state";

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildIdentity(deps: ServiceDeps<"identity">): Promise<RunningService> {
  const users = new UserRepository(deps.db, new IdAllocator(deps.db));
  const directory = new UserDirectory(users, deps.events, deps.nc, deps.log);
  const presenceStore = await PresenceStore.open(deps.nc, deps.log);
  const id: IdentityDeps = {
    users: directory,
    keys: new ApiKeyRepository(deps.db),
    attempts: new LoginAttemptRepository(deps.db),
    events: deps.events,
    bus: deps.bus,
    presence: new Presences(presenceStore, directory, deps.events),
  };
  await Promise.all([users.init(), id.keys.init(), id.attempts.init()]);

  const updateSettings = updateSettingsHandler(id);
  deps.server
    .handle(identity.authenticate, authenticateHandler(id))
    .handle(identity.createOwner, createOwnerHandler(id))
    .handle(identity.fetchApiKey, fetchApiKeyHandler(id))
    .handle(identity.getOwnUser, getOwnUserHandler(id))
    .handle(identity.getUserSummaries, getUserSummariesHandler(id))
    .handle(identity.createUser, createUserHandler(id))
    .handle(identity.getUsers, getUsersHandler(id))
    .handle(identity.getUser, getUserHandler(id))
    .handle(identity.getUserByEmail, getUserByEmailHandler(id))
    .handle(identity.updateUser, updateUserHandler(id))
    .handle(identity.updateUserByEmail, updateUserByEmailHandler(id))
    .handle(identity.updateSettings, updateSettings)
    .handle(identity.updateDisplaySettings, updateSettings)
    .handle(identity.updateNotificationSettings, updateSettings)
    .handle(identity.updateStatus, updateStatusHandler(id))
    .handle(identity.getUserStatus, getUserStatusHandler(id))
    .handle(identity.updatePresence, updatePresenceHandler(id))
    .handle(identity.getRealmPresence, getRealmPresenceHandler(id))
    .handle(identity.getUserPresence, getUserPresenceHandler(id))
    .handle(
      identity.registerState,
      registerStateHandler(identity.registerState, [
        ...usersState(id),
        ...presenceState(id),
        ...statusState(id),
        ...settingsState(id),
      ]),
    );
  return {
    stop: () => {
      id.users.stop();
      presenceStore.stop();
    },
  };
}
