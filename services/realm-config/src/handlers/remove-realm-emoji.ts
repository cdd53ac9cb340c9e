import {
  ZulipError,
  badRequest,
  isAdmin,
  requireUser,
  type EventPublisher,
  type Handler,
  type realmConfig,
} from "@teamchat/shared";
import type { RealmEmojiList } from "../emoji/realm-emoji-list";
import type { RealmEmojiRepository } from "../emoji/realm-emoji.repository";

/**
 * DELETE /realm/emoji/{emoji_name} (Zulip's delete_emoji and check_remove_custom_emoji):
 * administrators or the emoji's author deactivate it (its image stays, for the
 * messages and reactions that show it); everyone hears realm_emoji.
 */
export const removeRealmEmojiHandler =
  (deps: {
    emoji: RealmEmojiRepository;
    list: RealmEmojiList;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.removeRealmEmoji> =>
  async ({ emoji_name }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const emoji = await deps.emoji.activeByName(realm.id, emoji_name);
    if (!emoji) throw new ZulipError("BAD_REQUEST", `Emoji '${emoji_name}' does not exist`, 404);
    if (!isAdmin(actor) && emoji.authorId !== actor.userId) {
      throw badRequest("Must be an organization administrator or emoji author");
    }
    await deps.emoji.deactivate(realm.id, emoji.emojiId);
    await deps.list.changed(deps.events, realm.id, ctx.requestId);
    return {};
  };
