import { z } from "zod";
import { defineContract } from "../../contract";
import { fileContracts, storedFileLocationSchema, uploadedFilesParam } from "../../files";

/** The chunk transfer of identity's files (uploaded avatars). */
export const avatarFiles = fileContracts("identity");

const avatarUrlReply = z.strictObject({ avatar_url: z.string() });

/**
 * POST /users/me/avatar (Zulip's set_avatar_backend): one image, multipart,
 * kept resized as Zulip keeps it; the reply is the new avatar's URL.
 */
export const setAvatar = defineContract({
  subject: "identity.avatars.set",
  http: { method: "POST", path: "/users/me/avatar", auth: "user", upload: avatarFiles.putChunk },
  params: z.object({ files: uploadedFilesParam }),
  reply: avatarUrlReply,
});

/** DELETE /users/me/avatar (Zulip's delete_avatar_backend): back to Gravatar. */
export const deleteAvatar = defineContract({
  subject: "identity.avatars.delete",
  http: { method: "DELETE", path: "/users/me/avatar", auth: "user" },
  params: z.object({}),
  reply: avatarUrlReply,
});

/**
 * The gateway's GET /avatar/{email_or_id}[/medium] (Zulip's avatar view):
 * where it redirects, for a user id or an address.
 */
export const findAvatar = defineContract({
  subject: "identity.avatars.find",
  params: z.object({ email_or_id: z.string(), medium: z.boolean() }),
  reply: z.strictObject({ url: z.string() }),
});

/**
 * The gateway's GET /user_avatars/{realm_id}/{file_name}: where an uploaded
 * avatar's image is; served to anyone, as Zulip serves it.
 */
export const openAvatar = defineContract({
  subject: "identity.avatars.open",
  params: z.object({ realm_id: z.string(), file_name: z.string() }),
  reply: storedFileLocationSchema,
});
