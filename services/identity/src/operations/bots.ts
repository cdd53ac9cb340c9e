import { identity, type BusServer, type BusClient, type EventPublisher } from "@teamchat/shared";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import { createBotHandler } from "../handlers/create-bot";
import { deactivateBotHandler } from "../handlers/deactivate-bot";
import { getBotApiKeyHandler } from "../handlers/get-bot-api-key";
import { getBotsHandler } from "../handlers/get-bots";
import { regenerateBotApiKeyHandler } from "../handlers/regenerate-bot-api-key";
import { updateBotHandler } from "../handlers/update-bot";
import type { InvitationRepository } from "../invitations/invitation.repository";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { UserDirectory } from "../users/user-directory";

/** Bots and their API keys. */
export function registerBotOperations(
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
    .handle(identity.createBot, createBotHandler({ users, keys, events, bus, userDefaults, groups }))
    .handle(identity.getBots, getBotsHandler({ users, keys }))
    .handle(identity.updateBot, updateBotHandler({ users, events, keys, bus }))
    .handle(identity.deactivateBot, deactivateBotHandler({ users, events, invitations }))
    .handle(identity.regenerateBotApiKey, regenerateBotApiKeyHandler({ users, keys, events }))
    .handle(identity.getBotApiKey, getBotApiKeyHandler({ users, keys }));
}
