import { requireUser, type Handler, type identity } from "@teamchat/shared";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import { accessBotById } from "../bots/bot-permissions";
import { requireMemberOrAdmin } from "../users/access";
import type { UserDirectory } from "../users/user-directory";

/** GET /bots/{bot_id}/api_key (Zulip's get_bot_api_key, FL 463): the key, to whoever may administer the bot. */
export const getBotApiKeyHandler =
  ({ users, keys }: { users: UserDirectory; keys: ApiKeyRepository }): Handler<typeof identity.getBotApiKey> =>
  async ({ bot_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const bot = await accessBotById(users, realm, actor, bot_id);
    return { api_key: (await keys.botKeys(realm.id, [bot.userId])).get(bot.userId) ?? "" };
  };
