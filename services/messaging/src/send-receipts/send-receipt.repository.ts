import type { Connection } from "mongoose";
import { TenantRepository, isDuplicateKey } from "@teamchat/shared";
import type { InstanceLiveness } from "./instance-liveness";
import { sendReceiptSchema, type SendReceiptDoc } from "./send-receipt.schema";

/**
 * What claim found: nothing yet (send), a message stored but not delivered
 * (finish its delivery), a send done, or one another attempt is working on.
 */
export type SendClaim =
  /** `retry`: an earlier attempt failed, maybe after storing the message (its outcome unknown) */
  | { kind: "claimed"; retry: boolean }
  | { kind: "stored"; messageId: number }
  | { kind: "sent"; messageId: number }
  | { kind: "sending" };

/**
 * The receipts of keyed sends. A claim is taken before a send, notes the
 * message once stored and is completed once delivered. An attempt that
 * failed gives its claim up, so that a retry takes over at once: it finishes
 * the delivery of a message stored, and before sending again looks for one
 * stored without the receipt knowing (the database lost the connection
 * after writing). An instance that died mid-send leaves a claim a retry
 * takes over as soon as that instance is gone from the bus, or once the claim
 * is ABANDONED_AFTER_MS old when that cannot be told (an instance cut off from
 * NATS but still writing would then race the retry; its own send has no way
 * to answer, so this is the lesser harm).
 */
export class SendReceiptRepository extends TenantRepository<SendReceiptDoc> {
  static readonly ABANDONED_AFTER_MS = 60_000;

  constructor(
    conn: Connection,
    private readonly instance: InstanceLiveness,
  ) {
    super(conn.model<SendReceiptDoc>("SendReceipt", sendReceiptSchema));
  }

  async claim(realmId: number, senderId: number, key: string, now = new Date()): Promise<SendClaim> {
    const claimedBy = this.instance.id;
    try {
      await this.insertOne({
        realmId,
        senderId,
        key,
        messageId: null,
        delivered: false,
        claimedAt: now,
        claimedBy,
        gaveUp: false,
      });
      return { kind: "claimed", retry: false };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const abandonedBefore = new Date(now.getTime() - SendReceiptRepository.ABANDONED_AFTER_MS);
    const takeOver = async (claim: Record<string, unknown>): Promise<SendClaim | null> => {
      const taken = await this.findOneAndUpdate(
        realmId,
        { senderId, key, delivered: { $ne: true }, ...claim },
        { $set: { claimedAt: now, claimedBy, gaveUp: false } },
      );
      if (!taken) return null;
      return taken.messageId === null
        ? { kind: "claimed", retry: true }
        : { kind: "stored", messageId: taken.messageId };
    };
    // given up (failed), or held so long that its attempt is taken for dead
    const abandoned = await takeOver({ $or: [{ gaveUp: true }, { claimedAt: { $lt: abandonedBefore } }] });
    if (abandoned) return abandoned;
    const receipt = await this.findOne(realmId, { senderId, key });
    if (!receipt) return this.claim(realmId, senderId, key, now);
    if (receipt.delivered && receipt.messageId !== null) return { kind: "sent", messageId: receipt.messageId };
    if (receipt.claimedBy && !(await this.instance.isAlive(receipt.claimedBy))) {
      // the claim as read: a retry racing this one to take it over finds it changed
      const orphaned = await takeOver({ claimedBy: receipt.claimedBy, claimedAt: receipt.claimedAt });
      if (orphaned) return orphaned;
    }
    return { kind: "sending" };
  }

  async stored(realmId: number, senderId: number, key: string, messageId: number): Promise<void> {
    await this.updateOne(realmId, { senderId, key }, { $set: { messageId } });
  }

  async delivered(realmId: number, senderId: number, key: string): Promise<void> {
    await this.updateOne(realmId, { senderId, key }, { $set: { delivered: true } });
  }

  /**
   * After a send failed: a retry takes over at once, to send, or to finish
   * what it stored. claimedAt stays: the receipt must outlive its TTL sweep,
   * or a retry would find no receipt and send the message again.
   */
  async failed(realmId: number, senderId: number, key: string): Promise<void> {
    await this.updateOne(realmId, { senderId, key, delivered: { $ne: true } }, { $set: { gaveUp: true } });
  }
}
