import { identity, isAdmin, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import { EMBEDDED_BOT_CONFIG_TEMPLATES } from "./bot-services";
import { toBot } from "./bot-view";
import type { UserDirectory } from "../users/user-directory";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";

/**
 * register's realm_bots (Zulip's get_owned_bot_dicts): every bot of the
 * organization for administrators, deactivated ones included; the caller's own
 * bots for others. System bots are not the organization's users (users.all()).
 */
export const botsState = ({ users, keys }: { users: UserDirectory; keys: ApiKeyRepository }): StateProvider[] => [
  provideState(identity.realmBotState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const bots = (await users.all(realm.id)).filter(
      (u) => u.isBot && (isAdmin(actor) || u.botOwnerId === actor.userId),
    );
    const apiKeys = await keys.botKeys(
      realm.id,
      bots.map((b) => b.userId),
    );
    return { realm_bots: bots.map((b) => toBot(b, apiKeys.get(b.userId) ?? "", realm)) };
  }),
  provideState(identity.realmEmbeddedBotsState, async () => ({
    realm_embedded_bots: Object.entries(EMBEDDED_BOT_CONFIG_TEMPLATES).map(([name, config]) => ({ name, config })),
  })),
  // Incoming webhook integrations are not offered by this server (newBotProfile refuses them).
  provideState(identity.realmIncomingWebhookBotsState, async () => ({ realm_incoming_webhook_bots: [] })),
];
