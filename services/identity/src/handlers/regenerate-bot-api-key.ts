import { identity, identityEvents, requireUser, type Handler, type EventPublisher } from "@teamchat/shared";
import { accessBotById, botAdministrators } from "../bots/bot-permissions";
import { requireMemberOrAdmin } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";

/**
 * POST /bots/{bot_id}/api_key/regenerate (Zulip's regenerate_bot_api_key):
 * the old key stops working on every gateway before the reply; the bot's
 * administrators hear realm_bot update with the new key.
 */
export const regenerateBotApiKeyHandler =
  ({
    users,
    keys,
    events,
  }: {
    users: UserDirectory;
    keys: ApiKeyRepository;
    events: EventPublisher<"identity">;
  }): Handler<typeof identity.regenerateBotApiKey> =>
  async ({ bot_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const bot = await accessBotById(users, realm, actor, bot_id);
    const api_key = await keys.replace(realm.id, bot.userId, { bot: true });
    events.publish(identityEvents.authInvalidated, { userId: bot.userId }, ctx.requestId);
    events.publish(
      identityEvents.realmBot,
      {
        realmId: realm.id,
        userIds: await botAdministrators(users, realm.id, bot),
        event: { type: "realm_bot", op: "update", bot: { user_id: bot.userId, api_key } },
      },
      ctx.requestId,
    );
    return { api_key };
  };
