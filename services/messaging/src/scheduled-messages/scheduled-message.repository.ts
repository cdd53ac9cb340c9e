import type { Connection } from "mongoose";
import { TenantRepository, type IdAllocator, type messaging } from "@teamchat/shared";
import { scheduledMessageSchema, type DeliveryType, type ScheduledMessageDoc } from "./scheduled-message.schema";

/** What scheduling (or editing) decides: everything but the id, the sender and the delivery state. */
export type ScheduledMessageFields = Pick<
  ScheduledMessageDoc,
  | "type"
  | "streamId"
  | "recipientIds"
  | "topic"
  | "content"
  | "renderedContent"
  | "scheduledTimestamp"
  | "readBySender"
  | "client"
  | "realm"
  | "reminderTargetMessageId"
>;

/** The documents of one delivery type: those stored before reminders existed have none and are sent later. */
const ofType = (deliveryType: DeliveryType) =>
  deliveryType === "remind" ? { deliveryType } : { deliveryType: { $ne: "remind" as const } };

/** How many due messages one sweep of one instance takes. */
const DUE_BATCH = 100;

/** Zulip's ScheduledMessage.to_dict: a direct message's `to` is the other participants (the sender alone: themselves). */
export function toScheduledMessage(m: ScheduledMessageDoc): messaging.ScheduledMessage {
  const common = {
    scheduled_message_id: m.scheduledMessageId,
    content: m.content,
    rendered_content: m.renderedContent,
    scheduled_delivery_timestamp: m.scheduledTimestamp,
    failed: m.failed,
  };
  if (m.type === "stream") return { ...common, type: "stream", to: m.streamId!, topic: m.topic };
  const others = m.recipientIds.filter((id) => id !== m.senderId);
  return { ...common, type: "private", to: others.length ? others : [m.senderId] };
}

/** Zulip's ScheduledMessage.to_reminder_dict: `to` is the user themselves. */
export const toReminder = (m: ScheduledMessageDoc): messaging.Reminder => ({
  reminder_id: m.scheduledMessageId,
  to: [m.senderId],
  type: "private",
  content: m.content,
  rendered_content: m.renderedContent,
  scheduled_delivery_timestamp: m.scheduledTimestamp,
  failed: m.failed,
  reminder_target_message_id: m.reminderTargetMessageId!,
});

export class ScheduledMessageRepository extends TenantRepository<ScheduledMessageDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ScheduledMessageDoc>("ScheduledMessage", scheduledMessageSchema));
  }

  /**
   * The user's undelivered scheduled messages or reminders (failed ones too),
   * soonest first (Zulip's get_undelivered_scheduled_messages, get_undelivered_reminders).
   */
  undeliveredOf(realmId: number, senderId: number, deliveryType: DeliveryType): Promise<ScheduledMessageDoc[]> {
    return this.findOfUser(
      realmId,
      "senderId",
      senderId,
      { delivered: false, ...ofType(deliveryType) },
      {
        scheduledTimestamp: 1,
        scheduledMessageId: 1,
      },
    );
  }

  /** The user's scheduled message or reminder (Zulip's access_scheduled_message, access_reminder), delivered or not. */
  ofSender(
    realmId: number,
    senderId: number,
    scheduledMessageId: number,
    deliveryType: DeliveryType,
  ): Promise<ScheduledMessageDoc | null> {
    return this.findOne(realmId, { senderId, scheduledMessageId, ...ofType(deliveryType) });
  }

  async insert(
    realmId: number,
    senderId: number,
    deliveryType: DeliveryType,
    fields: ScheduledMessageFields,
  ): Promise<ScheduledMessageDoc> {
    return this.insertOne({
      realmId,
      scheduledMessageId: await this.ids.next("scheduled_message"),
      senderId,
      deliveryType,
      ...fields,
      delivered: false,
      deliveredMessageId: null,
      failed: false,
      failureMessage: null,
      claimedAt: null,
    });
  }

  /**
   * An edit (Zulip's edit_scheduled_message), which also clears a failure: only
   * while no instance has claimed the message for delivery. Null otherwise.
   */
  edit(
    realmId: number,
    senderId: number,
    scheduledMessageId: number,
    change: Partial<ScheduledMessageFields>,
  ): Promise<ScheduledMessageDoc | null> {
    return this.findOneAndUpdate(
      realmId,
      { senderId, scheduledMessageId, delivered: false, claimedAt: null },
      { $set: { ...change, failed: false, failureMessage: null } },
    );
  }

  /** Deletes it unless an instance is sending it now; false then (or when it does not exist). */
  async remove(realmId: number, senderId: number, scheduledMessageId: number): Promise<boolean> {
    const unclaimed = { senderId, scheduledMessageId, $or: [{ claimedAt: null }, { delivered: true }] };
    return (await this.deleteMany(realmId, unclaimed)) > 0;
  }

  /** Messages due at `now` (UNIX seconds) that no instance has claimed, in every organization, oldest first. */
  async due(now: number): Promise<ScheduledMessageDoc[]> {
    const due = await this.findInEveryRealm({
      delivered: false,
      failed: false,
      claimedAt: null,
      scheduledTimestamp: { $lte: now },
    });
    return due.sort((a, b) => a.scheduledTimestamp - b.scheduledTimestamp).slice(0, DUE_BATCH);
  }

  /** Claims that an instance took before `before` (epoch ms) and never finished: the instance stopped mid-send. */
  stale(before: number): Promise<ScheduledMessageDoc[]> {
    return this.findInEveryRealm({ delivered: false, failed: false, claimedAt: { $lt: before } });
  }

  /**
   * The atomic claim that makes one instance, and one only, send the message:
   * null when another instance claimed it first, or it was edited, deleted or sent meanwhile.
   */
  claim(m: ScheduledMessageDoc, at: number): Promise<ScheduledMessageDoc | null> {
    return this.findOneAndUpdate(
      m.realmId,
      {
        scheduledMessageId: m.scheduledMessageId,
        delivered: false,
        failed: false,
        claimedAt: null,
        scheduledTimestamp: m.scheduledTimestamp,
      },
      { $set: { claimedAt: at } },
    );
  }

  async markDelivered(m: ScheduledMessageDoc, messageId: number): Promise<void> {
    await this.updateOne(
      m.realmId,
      { scheduledMessageId: m.scheduledMessageId },
      { $set: { delivered: true, deliveredMessageId: messageId } },
    );
  }

  /** The failure, if the claim `claimedAt` is still the message's; the message after it, or null. */
  markFailed(m: ScheduledMessageDoc, claimedAt: number, failureMessage: string): Promise<ScheduledMessageDoc | null> {
    return this.findOneAndUpdate(
      m.realmId,
      { scheduledMessageId: m.scheduledMessageId, delivered: false, claimedAt },
      { $set: { failed: true, failureMessage, claimedAt: null } },
    );
  }
}
