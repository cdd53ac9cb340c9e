import { Schema, type Connection, type Model } from "mongoose";
import { insertKeepingExisting, WriteCoalescer, type notifications } from "@teamchat/shared";

/**
 * One message a user is to be emailed about (Zulip's
 * ScheduledMessageNotificationEmail), kept once sent so that the same notice
 * delivered again is not mailed twice.
 */
interface PendingEmailDoc {
  /** `<realm>:<user>:<message>` */
  _id: string;
  realmId: number;
  userId: number;
  notice: notifications.MissedMessageNotice;
  /** null while unsent */
  doneAt: Date | null;
}

/**
 * A user's batch: when it is mailed (its first message plus the user's
 * batching period), the instance mailing it and its back-off after a failed
 * attempt. It exists while the user has unsent rows, so that finding due
 * batches and a batch's time are reads of one small document per user, not of
 * every unsent row.
 */
interface BatchDoc {
  /** `<realm>:<user>` */
  _id: string;
  realmId: number;
  userId: number;
  scheduledAt: Date;
  leaseUntil: Date;
  failures: number;
  retryAt: Date;
}

const pendingEmailSchema = new Schema<PendingEmailDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    notice: { type: Schema.Types.Mixed, required: true },
    doneAt: { type: Date, default: null },
  },
  { collection: "missed_message_emails", versionKey: false, minimize: false },
);
// a user's unsent rows; prune, every ten minutes, reads the collection rather than keep an index on doneAt
// up to date at every notice (on SecantusDB a quarter of a row's insert)
pendingEmailSchema.index({ realmId: 1, userId: 1, doneAt: 1 });

const batchSchema = new Schema<BatchDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    scheduledAt: { type: Date, required: true },
    leaseUntil: { type: Date, required: true },
    failures: { type: Number, default: 0 },
    retryAt: { type: Date, required: true },
  },
  { collection: "missed_message_email_batches", versionKey: false },
);
batchSchema.index({ scheduledAt: 1 });

/** How long one instance holds a user's batch: longer than a batch's mailing, so a dead instance's batch is taken over after it. */
const LEASE_MS = 60_000;
/** Sent and dropped rows are kept this long to recognize notices delivered again, then deleted. */
const KEEP_DONE_MS = 24 * 3600_000;
const EPOCH = new Date(0);
/** How long a round of notices to store waits for more. */
const STORE_ROUND_MS = 200;

const batchId = (realmId: number, userId: number) => `${realmId}:${userId}`;

interface PendingAdd {
  notice: notifications.MissedMessageNotice;
  batchingSeconds: number;
  now: Date;
}

export class PendingEmailRepository {
  private readonly rows: Model<PendingEmailDoc>;
  private readonly batches: Model<BatchDoc>;

  private readonly adds = new WriteCoalescer<PendingAdd, void>((_, adds) => this.addAll(adds), STORE_ROUND_MS);

  constructor(conn: Connection) {
    this.rows = conn.model<PendingEmailDoc>("PendingEmail", pendingEmailSchema);
    this.batches = conn.model<BatchDoc>("PendingEmailBatch", batchSchema);
  }

  async init(): Promise<void> {
    // syncIndexes: indexes this schema no longer declares are dropped, not left to slow every insert
    const sync = async (model: Pick<Model<unknown>, "createCollection" | "syncIndexes">) => {
      await model.createCollection().catch(() => undefined);
      await model.syncIndexes();
    };
    await Promise.all([sync(this.rows), sync(this.batches)]);
  }

  /**
   * Keeps a notice for its user's batch, once: Zulip schedules a message with
   * the user's batch when one is pending, else `batchingSeconds` from now.
   * Notices are stored in rounds of up to STORE_ROUND_MS' worth, whatever their
   * organization: each row costs SecantusDB about half as much in a round of a
   * hundred as alone, and a batch waits minutes anyway.
   */
  add(notice: notifications.MissedMessageNotice, batchingSeconds: number, now = new Date()): Promise<void> {
    return this.adds.run("", { notice, batchingSeconds, now });
  }

  /**
   * The rows first, then their users' batches where none is pending: a batch
   * released meanwhile (release) either sees the rows or is made again here.
   * Unordered inserts whose duplicates fail keep what exists (a notice
   * delivered again, a pending batch) at half an upsert's cost on SecantusDB.
   */
  private async addAll(adds: PendingAdd[]): Promise<void[]> {
    await insertKeepingExisting(
      this.rows,
      adds.map(({ notice: { realmId, userId, message }, notice }) => ({
        _id: `${realmId}:${userId}:${message.id}`,
        realmId,
        userId,
        notice,
        doneAt: null,
      })),
    );
    const firstOf = new Map(adds.map((a) => [batchId(a.notice.realmId, a.notice.userId), a] as const).reverse());
    await insertKeepingExisting(
      this.batches,
      [...firstOf].map(
        ([
          _id,
          {
            notice: { realmId, userId },
            batchingSeconds,
            now,
          },
        ]) => ({
          _id,
          realmId,
          userId,
          scheduledAt: new Date(now.getTime() + batchingSeconds * 1000),
          leaseUntil: EPOCH,
          failures: 0,
          retryAt: EPOCH,
        }),
      ),
    );
    return adds.map(() => undefined);
  }

  /** Users whose batch is due, the longest waiting first. */
  async dueUsers(now: Date, limit: number): Promise<Array<{ realmId: number; userId: number }>> {
    return this.batches
      .find({ scheduledAt: { $lte: now } }, { _id: 0, realmId: 1, userId: 1 })
      .sort({ scheduledAt: 1 })
      .limit(limit)
      .lean<Array<Pick<BatchDoc, "realmId" | "userId">>>()
      .exec();
  }

  /**
   * Takes the user's batch for this instance, unless another holds it or it
   * waits out a back-off; returns its failures so far, or null when not taken.
   * A held batch is due again when its lease ends (its holder died).
   */
  async lease(realmId: number, userId: number, now: Date): Promise<number | null> {
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    const batch = await this.batches
      .findOneAndUpdate(
        { _id: batchId(realmId, userId), leaseUntil: { $lte: now }, retryAt: { $lte: now } },
        { $set: { leaseUntil, scheduledAt: leaseUntil } },
        { returnDocument: "after" },
      )
      .lean<BatchDoc>()
      .exec();
    return batch ? batch.failures : null;
  }

  /** The user's unsent notices. */
  async unsent(realmId: number, userId: number): Promise<notifications.MissedMessageNotice[]> {
    const rows = await this.rows
      .find({ realmId, userId, doneAt: null }, { notice: 1 })
      .lean<PendingEmailDoc[]>()
      .exec();
    return rows.map((r) => r.notice);
  }

  /** These notices are sent, or dropped (read, deleted): never mailed again. */
  async markDone(realmId: number, userId: number, messageIds: number[], now = new Date()): Promise<void> {
    if (!messageIds.length) return;
    await this.rows.updateMany(
      { _id: { $in: messageIds.map((id) => `${realmId}:${userId}:${id}`) } },
      { $set: { doneAt: now } },
    );
  }

  /**
   * The batch is done: the next one starts afresh. Rows stored while it was
   * mailed make a batch due at once (after the delete, so that add() either
   * sees no batch and makes one, or its rows are seen here).
   */
  async release(realmId: number, userId: number, now = new Date()): Promise<void> {
    const _id = batchId(realmId, userId);
    await this.batches.deleteOne({ _id });
    if (await this.rows.exists({ realmId, userId, doneAt: null })) {
      await insertKeepingExisting(this.batches, [
        { _id, realmId, userId, scheduledAt: now, leaseUntil: EPOCH, failures: 0, retryAt: EPOCH },
      ]);
    }
  }

  /** The attempt failed: the batch is tried again after `delayMs`. */
  async backOff(realmId: number, userId: number, failures: number, delayMs: number, now = new Date()): Promise<void> {
    const retryAt = new Date(now.getTime() + delayMs);
    await this.batches.updateOne(
      { _id: batchId(realmId, userId) },
      { $set: { leaseUntil: now, failures, retryAt, scheduledAt: retryAt } },
    );
  }

  /** Deletes rows done long enough ago that no copy of their notice can still arrive. */
  async prune(now = new Date()): Promise<void> {
    await this.rows.deleteMany({ doneAt: { $lt: new Date(now.getTime() - KEEP_DONE_MS) } });
  }
}
