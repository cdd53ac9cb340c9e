import { Schema, type Connection, type Model } from "mongoose";
import { insertKeepingExisting, syncCollection } from "@teamchat/shared";

/**
 * A user's pending missed-message email batch: when it is mailed (its first
 * item plus the user's batching period), the instance mailing it, its
 * back-off after a failed attempt and the items its attempts mailed already.
 * It exists while the user has pending items, so that finding due batches and
 * a batch's time are reads of one small document per user.
 */
interface EmailBatchDoc {
  /** `<realm>:<user>` */
  _id: string;
  realmId: number;
  userId: number;
  scheduledAt: Date;
  leaseUntil: Date;
  failures: number;
  retryAt: Date;
  /** items an attempt mailed before it failed or its instance died: a later attempt leaves them out */
  mailed?: string[];
}

const emailBatchSchema = new Schema<EmailBatchDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    scheduledAt: { type: Date, required: true },
    leaseUntil: { type: Date, required: true },
    failures: { type: Number, default: 0 },
    retryAt: { type: Date, required: true },
    mailed: { type: [String], default: undefined },
  },
  { collection: "missed_message_email_batches", versionKey: false },
);
emailBatchSchema.index({ scheduledAt: 1 });

/** How long one instance holds a user's batch: longer than a batch's mailing, so a dead instance's batch is taken over after it. */
const LEASE_MS = 60_000;
const EPOCH = new Date(0);

const batchId = (realmId: number, userId: number) => `${realmId}:${userId}`;

export class EmailBatchRepository {
  private readonly model: Model<EmailBatchDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<EmailBatchDoc>("EmailBatch", emailBatchSchema);
  }

  init(): Promise<void> {
    return syncCollection(this.model);
  }

  /**
   * Makes a batch due at `scheduledAt` for each user who has none (Zulip
   * schedules a message with the user's pending batch, else its batching
   * period from now). An unordered insert whose duplicates keep the pending
   * batch costs SecantusDB half an upsert.
   */
  async schedule(entries: Array<{ realmId: number; userId: number; scheduledAt: Date }>): Promise<void> {
    await insertKeepingExisting(
      this.model,
      entries.map(({ realmId, userId, scheduledAt }) => ({
        _id: batchId(realmId, userId),
        realmId,
        userId,
        scheduledAt,
        leaseUntil: EPOCH,
        failures: 0,
        retryAt: EPOCH,
      })),
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
   * waits out a back-off; returns its failures so far and the items mailed
   * already, or null when not taken. A held batch is due again when its lease
   * ends (its holder died).
   */
  async lease(realmId: number, userId: number, now: Date): Promise<{ failures: number; mailed: string[] } | null> {
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    const batch = await this.model
      .findOneAndUpdate(
        { _id: batchId(realmId, userId), leaseUntil: { $lte: now }, retryAt: { $lte: now } },
        { $set: { leaseUntil, scheduledAt: leaseUntil } },
        { returnDocument: "after", projection: { failures: 1, mailed: 1 } },
      )
      .lean<Pick<EmailBatchDoc, "failures" | "mailed">>()
      .exec();
    return batch ? { failures: batch.failures, mailed: batch.mailed ?? [] } : null;
  }

  /** These items were mailed: an attempt after this one, if any, leaves them out. */
  async addMailed(realmId: number, userId: number, itemIds: string[]): Promise<void> {
    await this.model.updateOne({ _id: batchId(realmId, userId) }, { $push: { mailed: { $each: itemIds } } });
  }

  /** The batch is done but its user has rows left: it is due again at `scheduledAt`, a new batch. */
  async renew(realmId: number, userId: number, scheduledAt: Date): Promise<void> {
    await this.model.updateOne(
      { _id: batchId(realmId, userId) },
      { $set: { scheduledAt, leaseUntil: EPOCH, failures: 0, retryAt: EPOCH }, $unset: { mailed: 1 } },
    );
  }

  /** The batch is done: the user's next item starts a new one. */
  async remove(realmId: number, userId: number): Promise<void> {
    await this.model.deleteOne({ _id: batchId(realmId, userId) });
  }

  /**
   * The attempt failed, having mailed `mailed` besides those recorded: the
   * batch is tried again after `delayMs`. Made again if the attempt failed
   * after removing it (its release), so that rows left have a batch.
   */
  async backOff(
    realmId: number,
    userId: number,
    failures: number,
    delayMs: number,
    mailed: string[] = [],
    now = new Date(),
  ): Promise<void> {
    const retryAt = new Date(now.getTime() + delayMs);
    await this.model.updateOne(
      { _id: batchId(realmId, userId) },
      {
        $set: { leaseUntil: now, failures, retryAt, scheduledAt: retryAt },
        $setOnInsert: { realmId, userId },
        $push: { mailed: { $each: mailed } },
      },
      { upsert: true },
    );
  }
}
