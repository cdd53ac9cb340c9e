import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { fileContracts, storedFileLocationSchema, uploadedFilesParam } from "../../files";
import { realmEmojiSchema } from "./register";

/** The chunk transfer of realm-config's files (custom emoji images). */
export const emojiFiles = fileContracts("realm-config");

/** The organization's custom emoji by id, deactivated ones too (Zulip's realm.get_emoji()). */
export const realmEmojiMapSchema = z.record(z.string(), realmEmojiSchema);
export type RealmEmojiMap = z.infer<typeof realmEmojiMapSchema>;

/** GET /realm/emoji (Zulip's list_emoji); messaging and identity read it too (RealmEmojiSource). */
export const listRealmEmoji = defineContract({
  subject: "realm-config.emoji.list",
  http: { method: "GET", path: "/realm/emoji", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ emoji: realmEmojiMapSchema }),
});

/** POST /realm/emoji/{emoji_name} (Zulip's upload_emoji): one image file, multipart. */
export const addRealmEmoji = defineContract({
  subject: "realm-config.emoji.add",
  http: { method: "POST", path: "/realm/emoji/{emoji_name}", auth: "user", upload: emojiFiles.putChunk },
  params: z.object({ emoji_name: z.string(), files: uploadedFilesParam }),
  reply: emptyReply,
});

/** DELETE /realm/emoji/{emoji_name} (Zulip's delete_emoji): deactivates it. */
export const removeRealmEmoji = defineContract({
  subject: "realm-config.emoji.remove",
  http: { method: "DELETE", path: "/realm/emoji/{emoji_name}", auth: "user" },
  params: z.object({ emoji_name: z.string() }),
  reply: emptyReply,
});

/**
 * The gateway's GET /user_avatars/{realm_id}/emoji/images/{file_name}: where
 * an emoji's image is; served to anyone, as Zulip serves it.
 */
export const openEmojiImage = defineContract({
  subject: "realm-config.emoji.image",
  params: z.object({ realm_id: z.string(), file_name: z.string() }),
  reply: storedFileLocationSchema,
});
