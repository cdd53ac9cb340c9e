import { IdAllocator, identity, type RunningService, type ServiceDeps } from "@teamchat/shared";
import { ApiKeyRepository } from "./api-keys/api-key.repository";
import { authenticateHandler } from "./handlers/authenticate";
import { createOwnerHandler } from "./handlers/create-owner";
import { fetchApiKeyHandler } from "./handlers/fetch-api-key";
import { getOwnUserHandler } from "./handlers/get-own-user";
import { LoginAttemptRepository } from "./login-attempts/login-attempt.repository";
import { UserRepository } from "./users/user.repository";

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildIdentity(deps: ServiceDeps): Promise<RunningService> {
  const users = new UserRepository(deps.db, new IdAllocator(deps.db));
  const keys = new ApiKeyRepository(deps.db);
  const attempts = new LoginAttemptRepository(deps.db);
  await Promise.all([users.init(), keys.init(), attempts.init()]);

  deps.server
    .handle(identity.authenticate, authenticateHandler(users, keys))
    .handle(identity.createOwner, createOwnerHandler(users, keys))
    .handle(identity.fetchApiKey, fetchApiKeyHandler(users, keys, attempts))
    .handle(identity.getOwnUser, getOwnUserHandler(users));
  return {};
}
