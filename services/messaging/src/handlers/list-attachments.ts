import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import { attachmentView } from "../attachments/attachment-view";
import type { AttachmentRepository } from "../attachments/attachment.repository";

/** GET /attachments (Zulip's list_by_user): the caller's uploads and the organization's space used. */
export const listAttachmentsHandler =
  (deps: { attachments: AttachmentRepository }): Handler<typeof messaging.listAttachments> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [owned, used] = await Promise.all([
      deps.attachments.ownedBy(realm.id, actor.userId),
      deps.attachments.spaceUsed(realm.id),
    ]);
    return { attachments: owned.map(attachmentView), upload_space_used: used };
  };
