import { Schema, type Connection, type Model } from "mongoose";

/**
 * A user's pending missed-message email batch: the items it is to mail, when
 * (its first item plus the user's batching period), the instance mailing it
 * and its back-off after a failed attempt. It exists while it lists items, so
 * finding due batches and a batch's items are reads of one small document per
 * user.
 */
interface EmailBatchDoc {
  /** `<realm>:<user>` */
  _id: string;
  realmId: number;
  userId: number;
  /** ids of EmailNoticeRepository's items, the earliest stored first */
  itemIds: string[];
  scheduledAt: Date;
  leaseUntil: Date;
  failures: number;
  retryAt: Date;
}

const emailBatchSchema = new Schema<EmailBatchDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    itemIds: { type: [String], required: true },
    scheduledAt: { type: Date, required: true },
    leaseUntil: { type: Date, required: true },
    failures: { type: Number, default: 0 },
    retryAt: { type: Date, required: true },
  },
  { collection: "missed_message_email_batches", versionKey: false },
);
emailBatchSchema.index({ scheduledAt: 1 });

/** How long one instance holds a user's batch: longer than a batch's mailing, so a dead instance's batch is taken over after it. */
const LEASE_MS = 60_000;
const EPOCH = new Date(0);

const batchId = (realmId: number, userId: number) => `${realmId}:${userId}`;

/** A batch taken by this instance: its items, and how often mailing it failed before. */
export interface LeasedBatch {
  itemIds: string[];
  failures: number;
}

export class EmailBatchRepository {
  private readonly model: Model<EmailBatchDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<EmailBatchDoc>("EmailBatch", emailBatchSchema);
  }

  async init(): Promise<void> {
    await this.model.createCollection().catch(() => undefined);
    await this.model.syncIndexes();
  }

  /**
   * Adds items to their users' batches, making a batch due `scheduledAt` for
   * a user who has none (Zulip schedules a message with the user's pending
   * batch, else its batching period from now). One command for the lot;
   * an item added twice is listed once.
   */
  async add(entries: Array<{ realmId: number; userId: number; itemIds: string[]; scheduledAt: Date }>): Promise<void> {
    if (!entries.length) return;
    await this.model.bulkWrite(
      entries.map(({ realmId, userId, itemIds, scheduledAt }) => ({
        updateOne: {
          filter: { _id: batchId(realmId, userId) },
          update: {
            $addToSet: { itemIds: { $each: itemIds } },
            $setOnInsert: { realmId, userId, scheduledAt, leaseUntil: EPOCH, failures: 0, retryAt: EPOCH },
          },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  /** Users whose batch is due, the longest waiting first. */
  async dueUsers(now: Date, limit: number): Promise<Array<{ realmId: number; userId: number }>> {
    return this.model
      .find({ scheduledAt: { $lte: now } }, { _id: 0, realmId: 1, userId: 1 })
      .sort({ scheduledAt: 1 })
      .limit(limit)
      .lean<Array<Pick<EmailBatchDoc, "realmId" | "userId">>>()
      .exec();
  }

  /**
   * Takes the user's batch for this instance, unless another holds it or it
   * waits out a back-off; null when not taken. A held batch is due again when
   * its lease ends (its holder died).
   */
  async lease(realmId: number, userId: number, now: Date): Promise<LeasedBatch | null> {
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    const batch = await this.model
      .findOneAndUpdate(
        { _id: batchId(realmId, userId), leaseUntil: { $lte: now }, retryAt: { $lte: now } },
        { $set: { leaseUntil, scheduledAt: leaseUntil } },
        { returnDocument: "after", projection: { itemIds: 1, failures: 1 } },
      )
      .lean<Pick<EmailBatchDoc, "itemIds" | "failures">>()
      .exec();
    return batch && { itemIds: batch.itemIds, failures: batch.failures };
  }

  /**
   * The batch's items are done. Items added while it was mailed stay, due at
   * once; a batch left with none is deleted (only then, so an item added
   * meanwhile is never left without a batch).
   */
  async release(realmId: number, userId: number, itemIds: string[], now = new Date()): Promise<void> {
    const _id = batchId(realmId, userId);
    await this.model.updateOne(
      { _id },
      { $pullAll: { itemIds }, $set: { scheduledAt: now, leaseUntil: EPOCH, failures: 0, retryAt: EPOCH } },
    );
    await this.model.deleteOne({ _id, itemIds: { $size: 0 } });
  }

  /** The attempt failed: the batch is tried again after `delayMs`. */
  async backOff(realmId: number, userId: number, failures: number, delayMs: number, now = new Date()): Promise<void> {
    const retryAt = new Date(now.getTime() + delayMs);
    await this.model.updateOne(
      { _id: batchId(realmId, userId) },
      { $set: { leaseUntil: now, failures, retryAt, scheduledAt: retryAt } },
    );
  }
}
