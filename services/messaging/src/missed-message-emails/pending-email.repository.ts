import { Schema, type Connection, type Model } from "mongoose";
import { syncCollection, type notifications } from "@teamchat/shared";

/**
 * What a row keeps of one stored item (EmailNoticeRepository) for its user:
 * the item, and what deciding whether the user still has its message unread
 * needs, so that a batch whose messages were read since reads no item.
 */
export interface PendingNotice {
  itemId: string;
  messageId: number;
  /** the message's channel; none for a direct message */
  channelId?: number;
  senderId: number;
}

/** A row's notice of an item about `message`. */
export const pendingNoticeOf = (
  itemId: string,
  { id, channelId, senderId }: notifications.MissedMessageSnapshot,
): PendingNotice => ({ itemId, messageId: id, channelId, senderId });

/**
 * The items of one round of stores that one user is to be mailed about: a
 * user's pending items are listed by a row per round, not per item, so that a
 * busy channel's notices cost a row per user for a whole round of messages.
 */
interface PendingEmailDoc {
  /** `<realm>:<user>:<round>` */
  _id: string;
  realmId: number;
  userId: number;
  notices?: PendingNotice[];
  /** the items of a row stored before rows kept their notices, which only the items tell */
  itemIds?: string[];
}

const pendingEmailSchema = new Schema<PendingEmailDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    notices: { type: [Schema.Types.Mixed], default: undefined },
    itemIds: { type: [String], default: undefined },
  },
  { collection: "missed_message_email_pending", versionKey: false },
);
pendingEmailSchema.index({ realmId: 1, userId: 1 });

/** A user's row as a batch reads it. */
export type PendingRow =
  | { id: string; notices: PendingNotice[] }
  /** stored before rows kept their notices: its items tell what they are about */
  | { id: string; notices: undefined; itemIds: string[] };

/** Which stored items each user is still to be mailed about. */
export class PendingEmailRepository {
  private readonly model: Model<PendingEmailDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<PendingEmailDoc>("PendingEmail", pendingEmailSchema);
  }

  init(): Promise<void> {
    return syncCollection(this.model);
  }

  /** Lists a round's items for their users; `round` is the round's own id. */
  async add(
    round: string,
    entries: Array<{ realmId: number; userId: number; notices: PendingNotice[] }>,
  ): Promise<void> {
    await this.model.insertMany(
      entries.map(({ realmId, userId, notices }) => ({
        _id: `${realmId}:${userId}:${round}`,
        realmId,
        userId,
        notices,
      })),
      { lean: true },
    );
  }

  /** The user's rows. */
  async ofUser(realmId: number, userId: number): Promise<PendingRow[]> {
    const rows = await this.model.find({ realmId, userId }).lean<PendingEmailDoc[]>().exec();
    return rows.map(({ _id: id, notices, itemIds }) =>
      notices ? { id, notices } : { id, notices: undefined, itemIds: itemIds ?? [] },
    );
  }

  async exists(realmId: number, userId: number): Promise<boolean> {
    return (await this.model.exists({ realmId, userId })) !== null;
  }

  /** The rows' items are done with (mailed, or dropped). */
  async remove(rowIds: string[]): Promise<void> {
    if (rowIds.length) await this.model.deleteMany({ _id: { $in: rowIds } });
  }
}
