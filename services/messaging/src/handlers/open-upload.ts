import {
  ZulipError,
  badRequest,
  chunkCount,
  isAdmin,
  requireUser,
  type CallContext,
  type Handler,
  type messaging,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { mayAccessAttachment } from "../attachments/attachment-access";
import type { AttachmentDoc } from "../attachments/attachment.schema";
import type { UploadTokenRepository } from "../attachments/upload-token.repository";
import type { AttachmentRepository } from "../attachments/attachment.repository";
import type { MessageRepository } from "../messages/message.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { RealmExportRepository } from "../realm-exports/realm-export.repository";
import type { ReceiverCache } from "../user-messages/receiver-cache";

interface AccessDeps {
  attachments: AttachmentRepository;
  messages: MessageRepository;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  receivers: ReceiverCache;
}

/**
 * Zulip's serve_file: a file that does not exist is 404 "File not found.",
 * one the caller may not see 403 (anonymous callers included: there are no
 * web-public files here).
 */
async function accessUpload(deps: AccessDeps, ctx: CallContext, pathId: string): Promise<AttachmentDoc> {
  const realm = ctx.realm;
  const [attachment] = realm ? await deps.attachments.byPathIds(realm.id, [pathId]) : [];
  if (!realm || !attachment) throw new ZulipError("BAD_REQUEST", "File not found.", 404);
  if (!ctx.actor || !(await mayAccessAttachment(deps, realm.id, ctx.actor, attachment, ctx))) {
    throw new ZulipError("BAD_REQUEST", "You are not authorized to view this file.", 403);
  }
  return attachment;
}

const baseName = (pathId: string) => pathId.split("/").pop()!;

const locationOf = (attachment: AttachmentDoc) => ({
  file_id: attachment.fileId,
  content_type: attachment.contentType,
  size: attachment.size,
  chunks: chunkCount(attachment.size),
  filename: baseName(attachment.pathId),
});

/**
 * The gateway's GET /user_uploads/<path id>: an upload, or a finished realm
 * export's tarball (its export_url), which only administrators may fetch.
 */
export const openUploadHandler =
  (deps: AccessDeps & { exports: RealmExportRepository }): Handler<typeof messaging.openUpload> =>
  async ({ path_id }, ctx) => {
    const tarball =
      ctx.realm && path_id.includes("/exports/") ? await deps.exports.finishedAt(ctx.realm.id, path_id) : null;
    if (!tarball) return locationOf(await accessUpload(deps, ctx, path_id));
    if (!ctx.actor || !isAdmin(ctx.actor)) {
      throw new ZulipError("BAD_REQUEST", "You are not authorized to view this file.", 403);
    }
    return {
      file_id: tarball.fileId!,
      content_type: "application/gzip",
      size: tarball.size,
      chunks: chunkCount(tarball.size),
      filename: baseName(path_id),
    };
  };

/** GET /api/v1/user_uploads/{realm_id_str}/{filename} (Zulip's serve_file_url_backend). */
export const temporaryUploadUrlHandler =
  (deps: AccessDeps & { uploadTokens: UploadTokenRepository }): Handler<typeof messaging.temporaryUploadUrl> =>
  async ({ realm_id_str, filename }, ctx) => {
    const { realm } = requireUser(ctx);
    const attachment = await accessUpload(deps, ctx, `${realm_id_str}/${filename}`);
    const token = await deps.uploadTokens.issue(realm.id, attachment.pathId);
    return { url: `/user_uploads/temporary/${token}/${baseName(attachment.pathId)}` };
  };

/** The gateway's GET /user_uploads/temporary/{token}/{filename} (Zulip's serve_local_file_unauthed). */
export const openTemporaryUploadHandler =
  (deps: {
    attachments: AttachmentRepository;
    uploadTokens: UploadTokenRepository;
  }): Handler<typeof messaging.openTemporaryUpload> =>
  async ({ token, filename }, ctx) => {
    const pathId = ctx.realm ? await deps.uploadTokens.pathOf(ctx.realm.id, token) : null;
    if (!ctx.realm || !pathId) throw badRequest("Invalid token");
    if (baseName(pathId) !== filename) throw badRequest("Invalid filename");
    const [attachment] = await deps.attachments.byPathIds(ctx.realm.id, [pathId]);
    if (!attachment) throw new ZulipError("BAD_REQUEST", "File not found.", 404);
    return locationOf(attachment);
  };
