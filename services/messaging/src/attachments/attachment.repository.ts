import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { attachmentSchema, type AttachmentDoc } from "./attachment.schema";

export type NewAttachment = Omit<AttachmentDoc, "realmId" | "attachmentId" | "createTime" | "messages">;

export class AttachmentRepository extends TenantRepository<AttachmentDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<AttachmentDoc>("Attachment", attachmentSchema));
  }

  /** A new upload; an imported one keeps the time it was made. */
  async insert(realmId: number, attachment: NewAttachment, createTime = new Date()): Promise<AttachmentDoc> {
    const attachmentId = await this.ids.next("attachment");
    return this.insertOne({ ...attachment, realmId, attachmentId, createTime, messages: [] });
  }

  byId(realmId: number, attachmentId: number): Promise<AttachmentDoc | null> {
    return this.findOne(realmId, { attachmentId });
  }

  byPathIds(realmId: number, pathIds: string[]): Promise<AttachmentDoc[]> {
    return pathIds.length ? this.find(realmId, { pathId: { $in: pathIds } }) : Promise.resolve([]);
  }

  /** A user's uploads, oldest first. */
  ownedBy(realmId: number, ownerId: number): Promise<AttachmentDoc[]> {
    return this.find(realmId, { ownerId }, { sort: { attachmentId: 1 } });
  }

  /** Zulip's currently_used_upload_space_bytes: the size of every upload of the organization. */
  async spaceUsed(realmId: number): Promise<number> {
    const sizes = await this.find(realmId, {}, { projection: { size: 1 } });
    return sizes.reduce((sum, a) => sum + a.size, 0);
  }

  /** Links the attachment to a message; returns it after, or null when the message was linked already. */
  linkMessage(realmId: number, attachmentId: number, message: { id: number; dateSent: number }) {
    return this.findOneAndUpdate(
      realmId,
      { attachmentId, "messages.id": { $ne: message.id } },
      { $push: { messages: message } },
    );
  }

  /** Unlinks messages from every attachment that links them (an edit removed the links, or they were deleted). */
  async unlinkMessages(realmId: number, messageIds: number[], pathIds?: string[]): Promise<void> {
    if (!messageIds.length) return;
    await this.updateMany(
      realmId,
      { "messages.id": { $in: messageIds }, ...(pathIds ? { pathId: { $in: pathIds } } : {}) },
      { $pull: { messages: { id: { $in: messageIds } } } },
    );
  }

  async remove(realmId: number, attachmentId: number): Promise<void> {
    await this.deleteMany(realmId, { attachmentId });
  }
}
