import type { BusClient, EventPublisher } from "@teamchat/shared";
import type { ApiKeyRepository } from "./api-keys/api-key.repository";
import type { LoginAttemptRepository } from "./login-attempts/login-attempt.repository";
import type { UserRepository } from "./users/user.repository";

/**
 * What identity's handlers work with. Each handler takes a Pick of the parts
 * it uses, so its signature says what it touches.
 */
export interface Identity {
  users: UserRepository;
  keys: ApiKeyRepository;
  attempts: LoginAttemptRepository;
  events: EventPublisher<"identity">;
  bus: BusClient;
}
