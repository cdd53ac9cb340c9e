import { randomBytes, randomInt } from "node:crypto";
import {
  MAX_FILE_UPLOAD_SIZE_MIB,
  badRequest,
  requireUser,
  type Handler,
  type messaging,
  type FileStore,
  type EventPublisher,
} from "@teamchat/shared";
import { publishAttachmentEvent } from "../attachments/attachment-access";
import type { AttachmentRepository } from "../attachments/attachment.repository";

/**
 * Zulip's sanitize_name(strict=True): the file name as it goes in the URL,
 * ASCII letters, digits, `_`, `.` and `-` only.
 */
export function sanitizeFileName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9_ .-]/g, "")
    .trim()
    .replace(/[-\s]+/g, "-");
  return ["", ".", ".."].includes(cleaned) ? "uploaded-file" : cleaned;
}

/** Zulip's generate_message_upload_path: `<realm id>/<random byte in hex>/<24 random URL-safe characters>/<name>`. */
const newPathId = (realmId: number, name: string) =>
  [realmId, randomInt(256).toString(16), randomBytes(18).toString("base64url"), sanitizeFileName(name)].join("/");

/**
 * POST /user_uploads (Zulip's upload_file_backend): one file, at most
 * MAX_FILE_UPLOAD_SIZE_MIB; the uploader hears `attachment` add. A refused
 * request leaves no chunks behind.
 */
export const uploadFileHandler =
  (deps: {
    attachments: AttachmentRepository;
    files: FileStore;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.uploadFile> =>
  async ({ files }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [file] = files;
    await deps.files.accept(realm.id, files, () => {
      if (!file) throw badRequest("You must specify a file to upload");
      if (files.length !== 1) throw badRequest("You may only upload one file at a time");
      if (file.size > MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024) {
        throw badRequest(
          `File is larger than this server's configured maximum upload size (${MAX_FILE_UPLOAD_SIZE_MIB} MiB).`,
        );
      }
    });
    const attachment = await deps.attachments.insert(realm.id, {
      pathId: newPathId(realm.id, file.filename),
      fileId: file.file_id,
      name: file.filename,
      contentType: file.content_type,
      size: file.size,
      ownerId: actor.userId,
    });
    await publishAttachmentEvent(deps, realm.id, actor.userId, { op: "add", attachment }, ctx.requestId);
    const url = `/user_uploads/${attachment.pathId}`;
    ctx.log.info({ attachmentId: attachment.attachmentId, size: file.size }, "file uploaded");
    return { uri: url, url, filename: file.filename };
  };
