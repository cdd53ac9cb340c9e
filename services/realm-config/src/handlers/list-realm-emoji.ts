import { requireRealm, type Handler, type realmConfig } from "@teamchat/shared";
import type { RealmEmojiList } from "../emoji/realm-emoji-list";

/**
 * GET /realm/emoji (Zulip's list_emoji): every custom emoji, deactivated ones
 * too; anyone in the organization (the gateway checked who). Messaging loads
 * its copy with it, also on requests without a user (an accepted invitation's
 * system-bot messages).
 */
export const listRealmEmojiHandler =
  ({ list }: { list: RealmEmojiList }): Handler<typeof realmConfig.listRealmEmoji> =>
  async (_p, ctx) => ({ emoji: await list.get(requireRealm(ctx).id) });
