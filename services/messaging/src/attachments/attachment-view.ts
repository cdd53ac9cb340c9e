import type { messaging } from "@teamchat/shared";
import type { AttachmentDoc } from "./attachment.schema";

/** Zulip's Attachment.to_dict(): times in milliseconds. */
export const attachmentView = (a: AttachmentDoc): messaging.AttachmentView => ({
  id: a.attachmentId,
  name: a.name,
  path_id: a.pathId,
  size: a.size,
  create_time: a.createTime.getTime(),
  messages: a.messages.map((m) => ({ id: m.id, date_sent: m.dateSent * 1000 })),
});
