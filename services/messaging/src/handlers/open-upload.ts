import { ZulipError, chunkCount, type Handler, type messaging } from "@teamchat/shared";
import { mayAccessAttachment } from "../attachments/attachment-access";
import type { Deps } from "../deps";

/**
 * The gateway's GET /user_uploads/<path id> (Zulip's serve_file): a file that
 * does not exist is 404 "File not found.", one the caller may not see 403
 * (anonymous callers included: there are no web-public files here).
 */
export const openUploadHandler =
  (
    deps: Deps<"attachments" | "messages" | "channels" | "subscriptions" | "userGroups">,
  ): Handler<typeof messaging.openUpload> =>
  async ({ path_id }, ctx) => {
    const realm = ctx.realm;
    const [attachment] = realm ? await deps.attachments.byPathIds(realm.id, [path_id]) : [];
    if (!realm || !attachment) throw new ZulipError("BAD_REQUEST", "File not found.", 404);
    if (!ctx.actor || !(await mayAccessAttachment(deps, realm.id, ctx.actor, attachment, ctx))) {
      throw new ZulipError("BAD_REQUEST", "You are not authorized to view this file.", 403);
    }
    return {
      file_id: attachment.fileId,
      content_type: attachment.contentType,
      size: attachment.size,
      chunks: chunkCount(attachment.size),
      filename: attachment.pathId.split("/").pop()!,
    };
  };
