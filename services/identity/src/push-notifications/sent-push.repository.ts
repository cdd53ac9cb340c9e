import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { sentPushSchema, type PushChannel, type SentPushDoc } from "./sent-push.schema";

export class SentPushRepository extends TenantRepository<SentPushDoc> {
  constructor(conn: Connection) {
    super(conn.model<SentPushDoc>("SentPush", sentPushSchema));
  }

  /** The ways this message's notification already went to the user. */
  async sentChannels(realmId: number, userId: number, messageId: number): Promise<PushChannel[]> {
    return (await this.findOne(realmId, { userId, messageId }))?.sent ?? [];
  }

  async markSent(realmId: number, userId: number, messageId: number, channel: PushChannel): Promise<void> {
    await this.upsertOne(
      realmId,
      { userId, messageId },
      { $addToSet: { sent: channel }, $setOnInsert: { removed: [], sentAt: new Date() } },
    );
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
