import { Schema, type Connection, type Model } from "mongoose";
import { insertKeepingExisting, syncCollection, type notifications } from "@teamchat/shared";

/**
 * One queued item of missed-message emails: a message and the users to email
 * about it (Zulip's ScheduledMessageNotificationEmail rows, one document for
 * all of them). Written once, when stored: what each user is done with is
 * their pending rows' business (PendingEmailRepository), never the item's.
 */
export interface EmailNoticeDoc {
  /** the work item's id: one document however often it is delivered */
  _id: string;
  realmId: number;
  message: notifications.MissedMessageSnapshot;
  users: notifications.MissedMessageEmailNotices["users"];
  /**
   * the round that stored it, whose rows list it for its users: the rows a
   * delivery of it again adds are another round's, and list nothing
   */
  round?: string;
  /**
   * stored before items had a round: the users not yet mailed about it, of
   * which its rows list those still pending
   */
  pendingUserIds?: number[];
  storedAt: Date;
}

const emailNoticeSchema = new Schema<EmailNoticeDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    message: { type: Schema.Types.Mixed, required: true },
    users: { type: Schema.Types.Mixed, required: true },
    round: { type: String },
    pendingUserIds: { type: [Number], default: undefined },
    storedAt: { type: Date, required: true },
  },
  { collection: "missed_message_email_notices", versionKey: false, minimize: false },
);
// items are read by _id (a user's are listed by PendingEmailRepository); the prune reads a range of storedAt,
// so that its cost follows what it deletes, not the day of items kept (one index entry per item, not per user)
emailNoticeSchema.index({ storedAt: 1 });

/** The stored missed-message email items. */
export class EmailNoticeRepository {
  private readonly model: Model<EmailNoticeDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<EmailNoticeDoc>("EmailNotice", emailNoticeSchema);
  }

  init(): Promise<void> {
    return syncCollection(this.model);
  }

  /** Stores a round's items, once: an item delivered again keeps what its first delivery stored, its round among it. */
  async insert(
    items: Array<{ id: string; item: notifications.MissedMessageEmailNotices }>,
    round: string,
    now: Date,
  ): Promise<void> {
    await insertKeepingExisting(
      this.model,
      items.map(({ id, item: { realmId, message, users } }) => ({
        _id: id,
        realmId,
        message,
        users,
        round,
        storedAt: now,
      })),
    );
  }

  /** These items, by id: those stored (a round still storing its items has listed them already). */
  async byIds(ids: string[]): Promise<Map<string, EmailNoticeDoc>> {
    if (!ids.length) return new Map();
    const items = await this.model
      .find({ _id: { $in: ids } })
      .lean<EmailNoticeDoc[]>()
      .exec();
    return new Map(items.map((item) => [item._id, item]));
  }

  /**
   * Deletes the items stored before `time`, but those in `listed` (pending
   * rows still list them): through the storedAt index, so that the prune
   * reads what it deletes.
   */
  async prune(time: Date, listed: string[]): Promise<void> {
    await this.model.deleteMany({ storedAt: { $lt: time }, _id: { $nin: listed } });
  }
}
