import { Schema } from "mongoose";

/** Which way a notification went: the legacy tokens' payloads or the E2EE devices'. */
export type PushChannel = "legacy" | "e2ee";

/**
 * A message the user was notified of by push and whose notification is still
 * shown (Zulip's active_mobile_push_notification flag), per way it went: a
 * redelivered work item, or a second copy of it handled at the same time, does
 * not notify twice, and a removal withdraws only what was sent.
 */
export interface SentPushDoc {
  realmId: number;
  userId: number;
  messageId: number;
  /** the ways the notification went */
  sent: PushChannel[];
  /** the ways its removal went */
  removed: PushChannel[];
  /** until when a try holds each way it is sending (another try, or a duplicate of the notice, leaves it alone) */
  claims: Partial<Record<PushChannel, Date>>;
  sentAt: Date;
}

/** A notification no removal withdrew within this is forgotten (the device has long dropped it). */
const SENT_PUSH_RETENTION_SECONDS = 7 * 24 * 3600;

export const sentPushSchema = new Schema<SentPushDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    messageId: { type: Number, required: true },
    sent: { type: [String], default: [] },
    removed: { type: [String], default: [] },
    claims: { type: Object, default: {} },
    sentAt: { type: Date, required: true },
  },
  { collection: "sentpushes", versionKey: false },
);
// one per user and message: every read and write names both
sentPushSchema.index({ realmId: 1, userId: 1, messageId: 1 }, { unique: true });
sentPushSchema.index({ sentAt: 1 }, { expireAfterSeconds: SENT_PUSH_RETENTION_SECONDS });
