import type { Connection } from "mongoose";
import { TenantRepository, isDuplicateKey } from "@teamchat/shared";
import { sendReceiptSchema, type SendReceiptDoc } from "./send-receipt.schema";

/**
 * What claim found: nothing yet (send), a message stored but not delivered
 * (finish its delivery), a send done, or one another attempt is working on.
 */
export type SendClaim =
  | { kind: "claimed" }
  | { kind: "stored"; messageId: number }
  | { kind: "sent"; messageId: number }
  | { kind: "sending" };

/**
 * The receipts of keyed sends. A claim is taken before a send, notes the
 * message once stored and is completed once delivered. An attempt that
 * failed before storing gives its claim back; one that failed after gives it
 * up, so that a retry finishes the delivery instead of posting again. An
 * instance that died mid-send leaves a claim a retry takes over once it is
 * ABANDONED_AFTER_MS old.
 */
export class SendReceiptRepository extends TenantRepository<SendReceiptDoc> {
  static readonly ABANDONED_AFTER_MS = 60_000;

  constructor(conn: Connection) {
    super(conn.model<SendReceiptDoc>("SendReceipt", sendReceiptSchema));
  }

  async claim(realmId: number, senderId: number, key: string, now = new Date()): Promise<SendClaim> {
    try {
      await this.insertOne({ realmId, senderId, key, messageId: null, delivered: false, claimedAt: now });
      return { kind: "claimed" };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const abandonedBefore = new Date(now.getTime() - SendReceiptRepository.ABANDONED_AFTER_MS);
    const takenOver = await this.findOneAndUpdate(
      realmId,
      { senderId, key, delivered: { $ne: true }, claimedAt: { $lt: abandonedBefore } },
      { $set: { claimedAt: now } },
    );
    if (takenOver) {
      return takenOver.messageId === null ? { kind: "claimed" } : { kind: "stored", messageId: takenOver.messageId };
    }
    const receipt = await this.findOne(realmId, { senderId, key });
    // gone in between: the first attempt failed and gave it back
    if (!receipt) return this.claim(realmId, senderId, key, now);
    if (receipt.delivered && receipt.messageId !== null) return { kind: "sent", messageId: receipt.messageId };
    return { kind: "sending" };
  }

  async stored(realmId: number, senderId: number, key: string, messageId: number): Promise<void> {
    await this.updateOne(realmId, { senderId, key }, { $set: { messageId } });
  }

  async delivered(realmId: number, senderId: number, key: string): Promise<void> {
    await this.updateOne(realmId, { senderId, key }, { $set: { delivered: true } });
  }

  /** After a send failed: before storing, a retry sends again; after, a retry finishes at once. */
  async failed(realmId: number, senderId: number, key: string): Promise<void> {
    await this.deleteMany(realmId, { senderId, key, messageId: null });
    await this.updateOne(realmId, { senderId, key, delivered: { $ne: true } }, { $set: { claimedAt: new Date(0) } });
  }
}
