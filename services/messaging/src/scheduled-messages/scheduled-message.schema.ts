import { Schema } from "mongoose";
import type { RealmRef } from "@teamchat/shared";

/**
 * Zulip's ScheduledMessage.delivery_type: a message to send later as its
 * sender, or a reminder, which Notification Bot sends to its sender.
 */
export type DeliveryType = "send_later" | "remind";

/** Zulip's ScheduledMessage: a message checked when scheduled and sent by the delivery worker. */
export interface ScheduledMessageDoc {
  realmId: number;
  /** from IdAllocator ("scheduled_message"); not the id the message gets when sent */
  scheduledMessageId: number;
  senderId: number;
  type: "stream" | "private";
  /** the channel of a channel message */
  streamId: number | null;
  /** the participants of a direct message, the sender included, ascending ([] for a channel message) */
  recipientIds: number[];
  topic: string;
  content: string;
  renderedContent: string;
  /** UNIX seconds */
  scheduledTimestamp: number;
  /** as given when scheduled (POST /messages' read_by_sender); null: not given */
  readBySender: boolean | null;
  /** Zulip's sending_client */
  client: string;
  /** the organization as the scheduling request named it, for the delivery's request context */
  realm: RealmRef;
  delivered: boolean;
  deliveredMessageId: number | null;
  failed: boolean;
  failureMessage: string | null;
  /** epoch ms when a messaging instance claimed it for delivery (null: waiting, or failed) */
  claimedAt: number | null;
  /** absent on documents stored before reminders existed, which are all "send_later" */
  deliveryType?: DeliveryType;
  /** a reminder's message (Zulip's reminder_target_message_id) */
  reminderTargetMessageId?: number;
}

export const scheduledMessageSchema = new Schema<ScheduledMessageDoc>(
  {
    realmId: { type: Number, required: true },
    scheduledMessageId: { type: Number, required: true },
    senderId: { type: Number, required: true },
    type: { type: String, enum: ["stream", "private"], required: true },
    streamId: { type: Number, default: null },
    recipientIds: { type: [Number], default: [] },
    topic: { type: String, default: "" },
    content: { type: String, required: true },
    renderedContent: { type: String, required: true },
    scheduledTimestamp: { type: Number, required: true },
    readBySender: { type: Boolean, default: null },
    client: { type: String, required: true },
    realm: { type: Schema.Types.Mixed, required: true },
    delivered: { type: Boolean, default: false },
    deliveredMessageId: { type: Number, default: null },
    failed: { type: Boolean, default: false },
    failureMessage: { type: String, default: null },
    claimedAt: { type: Number, default: null },
    deliveryType: { type: String, enum: ["send_later", "remind"] },
    reminderTargetMessageId: { type: Number },
  },
  { collection: "scheduledmessages", versionKey: false },
);
// ScheduledMessageRepository.due and stale, across organizations (Zulip's zerver_unsent_scheduled_messages_by_time):
// equality on the state, a range on the time
scheduledMessageSchema.index({ delivered: 1, failed: 1, claimedAt: 1, scheduledTimestamp: 1 });
// ScheduledMessageRepository.undeliveredOf (Zulip's zerver_realm_unsent_scheduled_messages_by_user) and look-ups by id
scheduledMessageSchema.index({ realmId: 1, senderId: 1, delivered: 1, scheduledTimestamp: 1 });
scheduledMessageSchema.index({ realmId: 1, scheduledMessageId: 1 }, { unique: true });
