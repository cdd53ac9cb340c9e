import { Schema, type Connection, type Model } from "mongoose";
import { insertKeepingExisting, type notifications } from "@teamchat/shared";

/**
 * One queued item of missed-message emails: a message and the users to email
 * about it (Zulip's ScheduledMessageNotificationEmail rows, one document for
 * all of them). Kept after its users are mailed, so that the item delivered
 * again is recognized.
 */
export interface EmailNoticeDoc {
  /** the work item's id: one document however often it is delivered */
  _id: string;
  realmId: number;
  message: notifications.MissedMessageSnapshot;
  users: notifications.MissedMessageEmailNotices["users"];
  /** users mailed about the message, or for whom it was dropped (read, deleted, notifications turned off) */
  doneUserIds: number[];
  /** how many users are not done: the document is pruned once it is 0 and KEEP_DONE_MS has passed */
  undone: number;
  storedAt: Date;
}

const emailNoticeSchema = new Schema<EmailNoticeDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    message: { type: Schema.Types.Mixed, required: true },
    users: { type: Schema.Types.Mixed, required: true },
    doneUserIds: { type: [Number], default: [] },
    undone: { type: Number, required: true },
    storedAt: { type: Date, required: true },
  },
  // no secondary index: documents are read by _id, and the prune every ten minutes reads the collection
  { collection: "missed_message_email_notices", versionKey: false, minimize: false },
);

/** Done items are kept this long to recognize their delivery again, then deleted. */
const KEEP_DONE_MS = 24 * 3600_000;

/** The stored missed-message email items; which users' batches list them is EmailBatchRepository's. */
export class EmailNoticeRepository {
  private readonly model: Model<EmailNoticeDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<EmailNoticeDoc>("EmailNotice", emailNoticeSchema);
  }

  async init(): Promise<void> {
    await this.model.createCollection().catch(() => undefined);
    // indexes this schema no longer declares are dropped, not left to slow every insert
    await this.model.syncIndexes();
  }

  /** Stores items, once: an item delivered again keeps what its first delivery stored. */
  async insert(items: Array<{ id: string; item: notifications.MissedMessageEmailNotices }>, now: Date): Promise<void> {
    await insertKeepingExisting(
      this.model,
      items.map(({ id, item: { realmId, message, users } }) => ({
        _id: id,
        realmId,
        message,
        users,
        doneUserIds: [],
        undone: users.length,
        storedAt: now,
      })),
    );
  }

  /** The items of these ids that are still stored. */
  async byIds(ids: string[]): Promise<EmailNoticeDoc[]> {
    if (!ids.length) return [];
    return this.model
      .find({ _id: { $in: ids } })
      .lean<EmailNoticeDoc[]>()
      .exec();
  }

  /** The user is done with these items: mailed, or dropped. Doing it again changes nothing. */
  async markDone(userId: number, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.model.updateMany(
      { _id: { $in: ids }, doneUserIds: { $ne: userId } },
      { $addToSet: { doneUserIds: userId }, $inc: { undone: -1 } },
    );
  }

  /** Deletes items every user of which was done with long enough ago that no copy of them can still arrive. */
  async prune(now = new Date()): Promise<void> {
    await this.model.deleteMany({ undone: { $lte: 0 }, storedAt: { $lt: new Date(now.getTime() - KEEP_DONE_MS) } });
  }
}
