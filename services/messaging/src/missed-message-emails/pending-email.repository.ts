import { Schema, type Connection, type Model } from "mongoose";
import { syncCollection } from "@teamchat/shared";

/**
 * The items of one round of stores (EmailNoticeRepository) that one user is to
 * be mailed about: a user's pending items are listed by a row per round, not
 * per item, so that a busy channel's notices cost a row per user for a whole
 * round of messages.
 */
interface PendingEmailDoc {
  /** `<realm>:<user>:<round>` */
  _id: string;
  realmId: number;
  userId: number;
  itemIds: string[];
}

const pendingEmailSchema = new Schema<PendingEmailDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    itemIds: { type: [String], required: true },
  },
  { collection: "missed_message_email_pending", versionKey: false },
);
pendingEmailSchema.index({ realmId: 1, userId: 1 });

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
  async add(round: string, entries: Array<{ realmId: number; userId: number; itemIds: string[] }>): Promise<void> {
    await this.model.insertMany(
      entries.map(({ realmId, userId, itemIds }) => ({
        _id: `${realmId}:${userId}:${round}`,
        realmId,
        userId,
        itemIds,
      })),
      { lean: true },
    );
  }

  /** The user's rows: their ids, and the ids of the items they list (each once). */
  async ofUser(realmId: number, userId: number): Promise<{ rowIds: string[]; itemIds: string[] }> {
    const rows = await this.model.find({ realmId, userId }).lean<PendingEmailDoc[]>().exec();
    return { rowIds: rows.map((r) => r._id), itemIds: [...new Set(rows.flatMap((r) => r.itemIds))] };
  }

  async exists(realmId: number, userId: number): Promise<boolean> {
    return (await this.model.exists({ realmId, userId })) !== null;
  }

  /** The rows' items are done with (mailed, or dropped). */
  async remove(rowIds: string[]): Promise<void> {
    if (rowIds.length) await this.model.deleteMany({ _id: { $in: rowIds } });
  }
}
