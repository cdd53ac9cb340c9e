import { Schema } from "mongoose";

/**
 * A send the sender may retry: the key it was sent with (its Idempotency-Key
 * header, or Zulip's local echo pair queue_id + local_id), the message it
 * stored (null until then) and whether that message was delivered too.
 */
export interface SendReceiptDoc {
  realmId: number;
  senderId: number;
  key: string;
  messageId: number | null;
  delivered: boolean;
  /** when the attempt working on it started (the TTL index's date: a day after the last attempt) */
  claimedAt: Date;
  /** the messaging instance working on it (InstanceLiveness): once gone, a retry takes over at once */
  claimedBy: string | null;
  /** the last attempt failed: a retry takes over at once */
  gaveUp: boolean;
}

/** How long a retry is recognized: a day, far beyond any client's retry loop. */
export const SEND_RECEIPT_LIFETIME_SECONDS = 24 * 60 * 60;

export const sendReceiptSchema = new Schema<SendReceiptDoc>(
  {
    realmId: { type: Number, required: true },
    senderId: { type: Number, required: true },
    key: { type: String, required: true },
    messageId: { type: Number, default: null },
    delivered: { type: Boolean, default: false },
    claimedAt: { type: Date, required: true },
    claimedBy: { type: String, default: null },
    gaveUp: { type: Boolean, default: false },
  },
  { collection: "sendreceipts", versionKey: false },
);
// SendReceiptRepository.claim: one receipt per sender and key, so two attempts racing cannot both send
sendReceiptSchema.index({ realmId: 1, senderId: 1, key: 1 }, { unique: true });
// MongoDB drops receipts a day old (an engine without TTL indexes keeps them: a few bytes per keyed send)
sendReceiptSchema.index({ claimedAt: 1 }, { expireAfterSeconds: SEND_RECEIPT_LIFETIME_SECONDS });
