import { Schema, type Connection, type Model } from "mongoose";

/** An organization's digests of one week, queued (every user's item published). */
interface DigestRunDoc {
  /** `<realm>:<week>` */
  _id: string;
  queuedAt: Date;
}

/** A digest mailed (Zulip's USER_DIGEST_EMAIL_CREATED audit row). */
interface DigestSentDoc {
  /** `<realm>:<user>:<week>` */
  _id: string;
  realmId: number;
  userId: number;
  sentAt: Date;
}

const runSchema = new Schema<DigestRunDoc>(
  { _id: { type: String, required: true }, queuedAt: { type: Date, required: true } },
  { collection: "digest_runs", versionKey: false },
);

const sentSchema = new Schema<DigestSentDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    sentAt: { type: Date, required: true },
  },
  { collection: "digest_emails", versionKey: false },
);
// recentlySent: an organization's digests since a time; prune: old rows
sentSchema.index({ realmId: 1, sentAt: 1 });
sentSchema.index({ sentAt: 1 });

/** Records are kept two weeks: longer than a week's key can be asked about. */
const KEEP_MS = 14 * 24 * 3600_000;

/**
 * What makes the weekly digest once per organization and user: which
 * organizations' weeks were queued, and which users' digests were mailed.
 */
export class DigestRepository {
  private readonly runs: Model<DigestRunDoc>;
  private readonly sent: Model<DigestSentDoc>;

  constructor(conn: Connection) {
    this.runs = conn.model<DigestRunDoc>("DigestRun", runSchema);
    this.sent = conn.model<DigestSentDoc>("DigestSent", sentSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.runs.createIndexes(), this.sent.createIndexes()]);
  }

  async wasQueued(realmId: number, week: string): Promise<boolean> {
    return (await this.runs.exists({ _id: `${realmId}:${week}` })) !== null;
  }

  async markQueued(realmId: number, week: string, now: Date): Promise<void> {
    await this.runs.updateOne({ _id: `${realmId}:${week}` }, { $setOnInsert: { queuedAt: now } }, { upsert: true });
  }

  async wasSent(realmId: number, userId: number, week: string): Promise<boolean> {
    return (await this.sent.exists({ _id: `${realmId}:${userId}:${week}` })) !== null;
  }

  async markSent(realmId: number, userId: number, week: string, now: Date): Promise<void> {
    await this.sent.updateOne(
      { _id: `${realmId}:${userId}:${week}` },
      { $setOnInsert: { realmId, userId, sentAt: now } },
      { upsert: true },
    );
  }

  /** The organization's users mailed a digest after `since` (Zulip leaves them out for 12 hours). */
  async recentlySent(realmId: number, since: Date): Promise<Set<number>> {
    const rows = await this.sent
      .find({ realmId, sentAt: { $gt: since } }, { userId: 1 })
      .lean<Array<Pick<DigestSentDoc, "userId">>>()
      .exec();
    return new Set(rows.map((r) => r.userId));
  }

  async prune(now: Date): Promise<void> {
    const before = new Date(now.getTime() - KEEP_MS);
    await Promise.all([
      this.runs.deleteMany({ queuedAt: { $lt: before } }),
      this.sent.deleteMany({ sentAt: { $lt: before } }),
    ]);
  }
}
