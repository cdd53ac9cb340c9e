import {
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
 * DELETE /attachments/{attachment_id} (Zulip's remove_attachment): the uploader
 * alone ("Invalid attachment" for anyone else, as for an unknown id); the file
 * goes, messages keep their links (which then find nothing).
 */
export const removeAttachmentHandler =
  (deps: {
    attachments: AttachmentRepository;
    files: FileStore;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.removeAttachment> =>
  async ({ attachment_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const attachment = await deps.attachments.byId(realm.id, attachment_id);
    if (!attachment || attachment.ownerId !== actor.userId) throw badRequest("Invalid attachment");
    await deps.attachments.remove(realm.id, attachment_id);
    await deps.files.remove(realm.id, [attachment.fileId]);
    await publishAttachmentEvent(
      deps,
      realm.id,
      actor.userId,
      { op: "remove", attachmentId: attachment_id },
      ctx.requestId,
    );
    return {};
  };
