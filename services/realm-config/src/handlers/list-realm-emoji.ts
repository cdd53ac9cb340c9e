import { requireUser, type Handler, type realmConfig } from "@teamchat/shared";
import type { RealmEmojiList } from "../emoji/realm-emoji-list";

/** GET /realm/emoji (Zulip's list_emoji): every custom emoji, deactivated ones too; anyone in the organization. */
export const listRealmEmojiHandler =
  ({ list }: { list: RealmEmojiList }): Handler<typeof realmConfig.listRealmEmoji> =>
  async (_p, ctx) => ({ emoji: await list.get(requireUser(ctx).realm.id) });
