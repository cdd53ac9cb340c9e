import { ZulipError, chunkCount, type Handler, type realmConfig } from "@teamchat/shared";
import type { RealmEmojiRepository } from "../emoji/realm-emoji.repository";

/** The gateway's /user_avatars/{realm_id}/emoji/images/{file_name}: any emoji's image, deactivated ones too, to anyone. */
export const openEmojiImageHandler =
  ({ emoji }: { emoji: RealmEmojiRepository }): Handler<typeof realmConfig.openEmojiImage> =>
  async ({ realm_id, file_name }, ctx) => {
    const found = ctx.realm && realm_id === `${ctx.realm.id}` ? await emoji.byFileName(ctx.realm.id, file_name) : null;
    if (!found) throw new ZulipError("BAD_REQUEST", "File not found", 404);
    return { file_id: found.fileId, content_type: found.contentType, size: found.size, chunks: chunkCount(found.size) };
  };
