import { Schema, type Connection, type Model } from "mongoose";
import { insertKeepingExisting } from "@teamchat/shared";

/**
 * Messages a user was sent a push notification about (Zulip's
 * active_mobile_push_notification flag): what to withdraw from their devices
 * when they read the message elsewhere or it is deleted.
 */
interface PushNotifiedDoc {
  /** `<realm>:<user>:<message>` */
  _id: string;
  realmId: number;
  userId: number;
  messageId: number;
}

const pushNotifiedSchema = new Schema<PushNotifiedDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    messageId: { type: Number, required: true },
  },
  { collection: "push_notified_messages", versionKey: false },
);
// ofMessages: a deleted message's notified users; the user's own rows go by _id prefix
pushNotifiedSchema.index({ realmId: 1, messageId: 1 });
pushNotifiedSchema.index({ realmId: 1, userId: 1 });

export class PushNotifiedRepository {
  private readonly model: Model<PushNotifiedDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<PushNotifiedDoc>("PushNotified", pushNotifiedSchema);
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** These users are pushed this message (kept as it is for those already recorded). */
  async add(realmId: number, userIds: number[], messageId: number): Promise<void> {
    await insertKeepingExisting(
      this.model,
      userIds.map((userId) => ({ _id: `${realmId}:${userId}:${messageId}`, realmId, userId, messageId })),
    );
  }

  /** Of these messages (one user's, or everyone's; all the user's when "all"), those notified, by user. */
  async notified(realmId: number, userId: number | null, messageIds: number[] | "all"): Promise<Map<number, number[]>> {
    const filter = {
      realmId,
      ...(userId !== null && { userId }),
      ...(messageIds !== "all" && { messageId: { $in: messageIds } }),
    };
    const rows = await this.model.find(filter, { userId: 1, messageId: 1 }).lean<PushNotifiedDoc[]>().exec();
    const byUser = new Map<number, number[]>();
    for (const r of rows) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r.messageId]);
    return byUser;
  }

  /** The removal of these notifications is queued: nothing more to withdraw. */
  async forget(realmId: number, userId: number, messageIds: number[]): Promise<void> {
    await this.model.deleteMany({ _id: { $in: messageIds.map((id) => `${realmId}:${userId}:${id}`) } });
  }
}
