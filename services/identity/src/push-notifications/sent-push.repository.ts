import type { Connection } from "mongoose";
import { TenantRepository, isDuplicateKey, type TenantFilter } from "@teamchat/shared";
import { sentPushSchema, type PushChannel, type SentPushDoc } from "./sent-push.schema";

export class SentPushRepository extends TenantRepository<SentPushDoc> {
  constructor(conn: Connection) {
    super(conn.model<SentPushDoc>("SentPush", sentPushSchema));
  }

  /**
   * Takes the sending of this message's notification one way for `leaseMs`:
   * `sent` when it already went, `held` while another try holds it (a try
   * that died lets go when its lease ends).
   */
  async claim(
    realmId: number,
    userId: number,
    messageId: number,
    channel: PushChannel,
    leaseMs: number,
  ): Promise<"claimed" | "sent" | "held"> {
    const now = new Date();
    const claim = `claims.${channel}`;
    try {
      await this.upsertOne(
        realmId,
        {
          userId,
          messageId,
          sent: { $ne: channel },
          $or: [{ [claim]: { $exists: false } }, { [claim]: { $lt: now } }],
        } as TenantFilter<SentPushDoc>,
        { $set: { [claim]: new Date(now.getTime() + leaseMs) }, $setOnInsert: { sent: [], removed: [], sentAt: now } },
      );
      return "claimed";
    } catch (err) {
      // the filter did not match the message's record, so the upsert made a second one: refused by the unique index
      if (!isDuplicateKey(err)) throw err;
      const record = await this.findOne(realmId, { userId, messageId } as TenantFilter<SentPushDoc>);
      return record?.sent.includes(channel) ? "sent" : "held";
    }
  }

  /** The claimed way went: recorded, and the claim let go. */
  async markSent(realmId: number, userId: number, messageId: number, channel: PushChannel): Promise<void> {
    await this.updateOne(
      realmId,
      { userId, messageId },
      { $addToSet: { sent: channel }, $unset: { [`claims.${channel}`]: "" } },
    );
  }

  /** The claimed way failed: let go at once, for the next try. */
  async release(realmId: number, userId: number, messageId: number, channel: PushChannel): Promise<void> {
    await this.updateOne(realmId, { userId, messageId }, { $unset: { [`claims.${channel}`]: "" } });
  }

  /** The notifications among these messages still shown to the user, with how each went and was withdrawn. */
  shown(realmId: number, userId: number, messageIds: number[]): Promise<SentPushDoc[]> {
    return this.find(realmId, { userId, messageId: { $in: messageIds } });
  }

  async markRemoved(realmId: number, userId: number, messageIds: number[], channel: PushChannel): Promise<void> {
    await this.updateMany(realmId, { userId, messageId: { $in: messageIds } }, { $addToSet: { removed: channel } });
  }

  /** Every way they went has been withdrawn (Zulip clears active_mobile_push_notification). */
  async forget(realmId: number, userId: number, messageIds: number[]): Promise<void> {
    await this.deleteMany(realmId, { userId, messageId: { $in: messageIds } });
  }
}
