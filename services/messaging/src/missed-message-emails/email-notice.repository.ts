import { Schema, type Connection, type Model } from "mongoose";
import { insertKeepingExisting, syncCollection, type notifications } from "@teamchat/shared";

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
  /**
   * users not yet mailed about the message nor done with it otherwise (read,
   * deleted, notifications turned off); pruned once empty and KEEP_DONE_MS old
   */
  pendingUserIds: number[];
  storedAt: Date;
}

const emailNoticeSchema = new Schema<EmailNoticeDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    message: { type: Schema.Types.Mixed, required: true },
    users: { type: Schema.Types.Mixed, required: true },
    pendingUserIds: { type: [Number], required: true },
    storedAt: { type: Date, required: true },
  },
  { collection: "missed_message_email_notices", versionKey: false, minimize: false },
);
// items are read by _id (a user's are listed by PendingEmailRepository); the prune reads a range of storedAt,
// so that its cost follows what it deletes, not the day of items kept (one index entry per item, not per user)
emailNoticeSchema.index({ storedAt: 1 });

/** Done items are kept this long to recognize their delivery again, then deleted. */
const KEEP_DONE_MS = 24 * 3600_000;

/** The stored missed-message email items. */
export class EmailNoticeRepository {
  private readonly model: Model<EmailNoticeDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<EmailNoticeDoc>("EmailNotice", emailNoticeSchema);
  }

  init(): Promise<void> {
    return syncCollection(this.model);
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
        pendingUserIds: users.map((u) => u.userId),
        storedAt: now,
      })),
    );
  }

  /** Of these items, those the user is still to be mailed about. */
  async pendingOf(userId: number, ids: string[]): Promise<EmailNoticeDoc[]> {
    if (!ids.length) return [];
    return this.model
      .find({ _id: { $in: ids }, pendingUserIds: userId })
      .lean<EmailNoticeDoc[]>()
      .exec();
  }

  /** The user is done with these items: mailed, or dropped. */
  async markDone(userId: number, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.model.updateMany({ _id: { $in: ids } }, { $pull: { pendingUserIds: userId } });
  }

  /** Deletes items done with, stored long enough ago that no copy of them can still arrive. */
  async prune(now = new Date()): Promise<void> {
    await this.model.deleteMany({
      storedAt: { $lt: new Date(now.getTime() - KEEP_DONE_MS) },
      pendingUserIds: { $size: 0 },
    });
  }
}
