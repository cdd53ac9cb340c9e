import { identity, requireUser, type Handler } from "@teamchat/shared";
import { requireMemberOrAdmin } from "../users/access";
import { apiEmail, avatarUrl } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";

/** GET /bots (Zulip's get_bots_backend): the caller's own active bots, oldest first, with their keys. */
export const getBotsHandler =
  ({ users, keys }: { users: UserDirectory; keys: ApiKeyRepository }): Handler<typeof identity.getBots> =>
  async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const bots = (await users.all(realm.id))
      .filter((u) => u.isBot && u.isActive && u.botOwnerId === actor.userId)
      .sort((a, b) => a.dateJoined.getTime() - b.dateJoined.getTime() || a.userId - b.userId);
    const apiKeys = await keys.botKeys(
      realm.id,
      bots.map((b) => b.userId),
    );
    return {
      bots: bots.map((bot) => ({
        username: apiEmail(bot, realm),
        full_name: bot.fullName,
        api_key: apiKeys.get(bot.userId) ?? "",
        avatar_url: avatarUrl(bot),
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: bot.botProfile?.defaultAllPublicStreams ?? false,
      })),
    };
  };
