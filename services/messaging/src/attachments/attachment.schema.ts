import { Schema } from "mongoose";

/** Zulip's Attachment: an uploaded file, its owner, and the messages that link it. */
export interface AttachmentDoc {
  realmId: number;
  attachmentId: number;
  /** `<realm id>/<random>/<random>/<sanitized name>`: the file's URL is `/user_uploads/<pathId>` */
  pathId: string;
  /** the chunks' id in the FileStore */
  fileId: string;
  /** the name the file was uploaded with */
  name: string;
  contentType: string;
  size: number;
  ownerId: number;
  createTime: Date;
  /** the messages that link it (Zulip's attachment.messages), with their send time in seconds */
  messages: Array<{ id: number; dateSent: number }>;
}

export const attachmentSchema = new Schema<AttachmentDoc>(
  {
    realmId: { type: Number, required: true },
    attachmentId: { type: Number, required: true },
    pathId: { type: String, required: true },
    fileId: { type: String, required: true },
    name: { type: String, required: true },
    contentType: { type: String, required: true },
    size: { type: Number, required: true },
    ownerId: { type: Number, required: true },
    createTime: { type: Date, required: true },
    messages: { type: [{ _id: false, id: Number, dateSent: Number }], default: [] },
  },
  { collection: "attachments", versionKey: false },
);
// byId, remove: one attachment per id
attachmentSchema.index({ realmId: 1, attachmentId: 1 }, { unique: true });
// byPathIds (GET /user_uploads/..., claims on send and edit)
attachmentSchema.index({ realmId: 1, pathId: 1 }, { unique: true });
// ownedBy (GET /attachments)
attachmentSchema.index({ realmId: 1, ownerId: 1 });
// forgetMessages (message deletion)
attachmentSchema.index({ realmId: 1, "messages.id": 1 });
