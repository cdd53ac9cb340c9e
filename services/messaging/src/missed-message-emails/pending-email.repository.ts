import { randomBytes } from "node:crypto";
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
  /** `<round>:<realm>:<user>` (roundKey()); `<realm>:<user>:<uuid>` when stored before rows kept their notices */
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
  | { id: string; round: string; storedAt: Date; notices: PendingNotice[] }
  /** stored before rows kept their notices: its items tell what they are about */
  | { id: string; round: undefined; itemIds: string[] };

/**
 * A round's key: the time of its store, then a random part (rounds of several
 * instances may share a millisecond). A row's id starts with it, so rows sort
 * by the time they were stored, after every row stored before the keys (whose
 * ids start with a digit), and the _id index finds those stored before a time.
 */
export const roundKey = (at: Date, unique = randomBytes(4).toString("hex")): string =>
  `r${String(at.getTime()).padStart(15, "0")}.${unique}`;

const timeOfRound = (round: string): Date => new Date(Number(round.slice(1, 16)));

/** Which stored items each user is still to be mailed about. */
export class PendingEmailRepository {
  private readonly model: Model<PendingEmailDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<PendingEmailDoc>("PendingEmail", pendingEmailSchema);
  }

  init(): Promise<void> {
    return syncCollection(this.model);
  }

  /** Lists a round's items for their users; `round` is the round's key (roundKey()). */
  async add(
    round: string,
    entries: Array<{ realmId: number; userId: number; notices: PendingNotice[] }>,
  ): Promise<void> {
    await this.model.insertMany(
      entries.map(({ realmId, userId, notices }) => ({
        _id: `${round}:${realmId}:${userId}`,
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
    return rows.map(({ _id: id, notices, itemIds }) => {
      if (!notices) return { id, round: undefined, itemIds: itemIds ?? [] };
      const round = id.slice(0, id.indexOf(":"));
      return { id, round, storedAt: timeOfRound(round), notices };
    });
  }

  async exists(realmId: number, userId: number): Promise<boolean> {
    return (await this.model.exists({ realmId, userId })) !== null;
  }

  /** The rows' items are done with (mailed, or dropped). */
  async remove(rowIds: string[]): Promise<void> {
    if (rowIds.length) await this.model.deleteMany({ _id: { $in: rowIds } });
  }

  /**
   * The items still listed by rows stored before `time`: those of batches
   * that have waited that long (a long batching period, a mail server down),
   * found by the _id index whatever the number of rows stored since.
   */
  async itemsListedBefore(time: Date): Promise<string[]> {
    const rows = await this.model
      .find({ _id: { $lt: roundKey(time, "") } }, { notices: 1, itemIds: 1 })
      .lean<Array<Pick<PendingEmailDoc, "notices" | "itemIds">>>()
      .exec();
    return [...new Set(rows.flatMap((r) => r.notices?.map((n) => n.itemId) ?? r.itemIds ?? []))];
  }
}
