import type { realmConfig } from "@teamchat/shared";
import type { RealmEmojiDoc } from "./realm-emoji.schema";

/** Zulip's RealmEmoji dict; still_url is for animated images, which are not told apart here. */
export const realmEmojiMap = (emoji: RealmEmojiDoc[]): realmConfig.RealmEmojiMap =>
  Object.fromEntries(
    emoji.map((e) => [
      `${e.emojiId}`,
      {
        id: `${e.emojiId}`,
        name: e.name,
        source_url: `/user_avatars/${e.realmId}/emoji/images/${e.fileName}`,
        still_url: null,
        deactivated: e.deactivated,
        author_id: e.authorId,
      },
    ]),
  );
