import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { fileContracts, storedFileLocationSchema, uploadedFilesParam } from "../../files";
import { int } from "../common";

/** The chunk transfer of messaging's files (uploads). */
export const uploadFiles = fileContracts("messaging");

/** Zulip's Attachment.to_dict(): times in milliseconds. */
export const attachmentSchema = z.strictObject({
  id: int,
  name: z.string(),
  path_id: z.string(),
  size: int,
  create_time: int,
  messages: z.array(z.strictObject({ id: int, date_sent: int })),
});
export type AttachmentView = z.infer<typeof attachmentSchema>;

/** POST /user_uploads (Zulip's upload_file_backend): one file, multipart. */
export const uploadFile = defineContract({
  subject: "messaging.uploads.create",
  http: { method: "POST", path: "/user_uploads", auth: "user", upload: uploadFiles.putChunk },
  params: z.object({ files: uploadedFilesParam }),
  reply: z.strictObject({ uri: z.string(), url: z.string(), filename: z.string() }),
});

/**
 * The gateway's GET /user_uploads/{realm_id_str}/{path} (the file itself, not
 * under /api/v1): where the bytes are, when the caller may see them (Zulip's
 * serve_file with validate_attachment_request). Anonymous callers (no actor)
 * are refused as Zulip refuses them for files not web-public.
 */
export const openUpload = defineContract({
  subject: "messaging.uploads.open",
  params: z.object({ path_id: z.string() }),
  reply: storedFileLocationSchema.extend({ filename: z.string() }),
});

/**
 * GET /api/v1/user_uploads/{realm_id_str}/{filename} (Zulip's serve_file_url_backend):
 * for the same callers as the file itself, a URL that serves it without
 * credentials for 60 seconds (`/user_uploads/temporary/<token>/<name>`).
 */
export const temporaryUploadUrl = defineContract({
  subject: "messaging.uploads.temporary_url",
  http: { method: "GET", path: "/user_uploads/{realm_id_str}/{filename}", auth: "user", restOfPath: true },
  params: z.object({ realm_id_str: z.string(), filename: z.string() }),
  reply: z.strictObject({ url: z.string() }),
});

/** The gateway's GET /user_uploads/temporary/{token}/{filename} (Zulip's serve_local_file_unauthed). */
export const openTemporaryUpload = defineContract({
  subject: "messaging.uploads.open_temporary",
  params: z.object({ token: z.string(), filename: z.string() }),
  reply: storedFileLocationSchema.extend({ filename: z.string() }),
});

/** GET /attachments (Zulip's list_by_user). */
export const listAttachments = defineContract({
  subject: "messaging.attachments.list",
  http: { method: "GET", path: "/attachments", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ attachments: z.array(attachmentSchema), upload_space_used: int }),
});

/** DELETE /attachments/{attachment_id} (Zulip's remove_attachment). */
export const removeAttachment = defineContract({
  subject: "messaging.attachments.remove",
  http: { method: "DELETE", path: "/attachments/{attachment_id}", auth: "user" },
  params: z.object({ attachment_id: int }),
  reply: emptyReply,
});
