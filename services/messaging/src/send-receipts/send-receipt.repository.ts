import type { Connection } from "mongoose";
import { TenantRepository, isDuplicateKey } from "@teamchat/shared";
import { sendReceiptSchema, type SendReceiptDoc } from "./send-receipt.schema";

/** What claim found: this attempt may send, or an earlier one sent (or is sending) already. */
export type SendClaim = { kind: "claimed" } | { kind: "sent"; messageId: number } | { kind: "sending" };

/**
 * The receipts of keyed sends. A claim is taken before a send and completed
 * with the message id after it; an attempt that failed gives its claim back so
 * that a retry sends. An instance that died mid-send leaves a claim that a
 * retry takes over once it is ABANDONED_AFTER_MS old.
 */
export class SendReceiptRepository extends TenantRepository<SendReceiptDoc> {
  static readonly ABANDONED_AFTER_MS = 60_000;

  constructor(conn: Connection) {
    super(conn.model<SendReceiptDoc>("SendReceipt", sendReceiptSchema));
  }

  async claim(realmId: number, senderId: number, key: string, now = new Date()): Promise<SendClaim> {
    try {
      await this.insertOne({ realmId, senderId, key, messageId: null, claimedAt: now });
      return { kind: "claimed" };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const abandonedBefore = new Date(now.getTime() - SendReceiptRepository.ABANDONED_AFTER_MS);
    const takenOver = await this.findOneAndUpdate(
      realmId,
      { senderId, key, messageId: null, claimedAt: { $lt: abandonedBefore } },
      { $set: { claimedAt: now } },
    );
    if (takenOver) return { kind: "claimed" };
    const receipt = await this.findOne(realmId, { senderId, key });
    // gone in between: the first attempt failed and gave it back
    if (!receipt) return this.claim(realmId, senderId, key, now);
    return receipt.messageId === null ? { kind: "sending" } : { kind: "sent", messageId: receipt.messageId };
  }

  async complete(realmId: number, senderId: number, key: string, messageId: number): Promise<void> {
    await this.updateOne(realmId, { senderId, key }, { $set: { messageId } });
  }

  /** After a failed send: a retry sends again. */
  async release(realmId: number, senderId: number, key: string): Promise<void> {
    await this.deleteMany(realmId, { senderId, key, messageId: null });
  }
}
