import { Schema, type Connection, type Model } from "mongoose";
import { isDuplicateKey, WriteCoalescer, type notifications } from "@teamchat/shared";

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
  /** when the user's batch is mailed: the batch's first message plus the user's batching period */
  scheduledAt: Date;
  /** null while unsent */
  doneAt: Date | null;
}

/** A user's batch being mailed by one instance, and its back-off after a failed attempt. */
interface BatchDoc {
  /** `<realm>:<user>` */
  _id: string;
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
    scheduledAt: { type: Date, required: true },
    doneAt: { type: Date, default: null },
  },
  { collection: "missed_message_emails", versionKey: false, minimize: false },
);
// due: unsent rows by time; ofUser: a user's unsent rows
pendingEmailSchema.index({ doneAt: 1, scheduledAt: 1 });
pendingEmailSchema.index({ realmId: 1, userId: 1, doneAt: 1 });

const batchSchema = new Schema<BatchDoc>(
  {
    _id: { type: String, required: true },
    leaseUntil: { type: Date, required: true },
    failures: { type: Number, default: 0 },
    retryAt: { type: Date, required: true },
  },
  { collection: "missed_message_email_batches", versionKey: false },
);

/** How long one instance holds a user's batch: longer than a batch's mailing, so a dead instance's batch is taken over after it. */
const LEASE_MS = 60_000;
/** Sent and dropped rows are kept this long to recognize notices delivered again, then deleted. */
const KEEP_DONE_MS = 24 * 3600_000;

const batchId = (realmId: number, userId: number) => `${realmId}:${userId}`;

interface PendingAdd {
  notice: notifications.MissedMessageNotice;
  batchingSeconds: number;
  now: Date;
}

export class PendingEmailRepository {
  private readonly rows: Model<PendingEmailDoc>;
  private readonly batches: Model<BatchDoc>;

  private readonly adds = new WriteCoalescer<PendingAdd, void>((realm, adds) => this.addAll(Number(realm), adds));

  constructor(conn: Connection) {
    this.rows = conn.model<PendingEmailDoc>("PendingEmail", pendingEmailSchema);
    this.batches = conn.model<BatchDoc>("PendingEmailBatch", batchSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.rows.createIndexes(), this.batches.createIndexes()]);
  }

  /**
   * Keeps a notice for its user's batch, once: Zulip schedules a message with
   * the user's batch when one is pending, else `batchingSeconds` from now.
   * The notices of an organization arriving together are stored in one round.
   */
  add(notice: notifications.MissedMessageNotice, batchingSeconds: number, now = new Date()): Promise<void> {
    return this.adds.run(String(notice.realmId), { notice, batchingSeconds, now });
  }

  private async addAll(realmId: number, adds: PendingAdd[]): Promise<void[]> {
    const userIds = [...new Set(adds.map((a) => a.notice.userId))];
    const pending = await this.rows
      .find({ realmId, userId: { $in: userIds }, doneAt: null }, { userId: 1, scheduledAt: 1 })
      .lean<Array<Pick<PendingEmailDoc, "userId" | "scheduledAt">>>()
      .exec();
    const batchOf = new Map(pending.map((p) => [p.userId, p.scheduledAt]));
    const writes = adds.map(({ notice, batchingSeconds, now }) => {
      const scheduledAt = batchOf.get(notice.userId) ?? new Date(now.getTime() + batchingSeconds * 1000);
      batchOf.set(notice.userId, scheduledAt);
      return {
        updateOne: {
          filter: { _id: `${realmId}:${notice.userId}:${notice.message.id}` },
          update: { $setOnInsert: { realmId, userId: notice.userId, notice, scheduledAt, doneAt: null } },
          upsert: true,
        },
      };
    });
    await this.rows.bulkWrite(writes, { ordered: false });
    return adds.map(() => undefined);
  }

  /** Users whose batch is due, each once. */
  async dueUsers(now: Date, limit: number): Promise<Array<{ realmId: number; userId: number }>> {
    const rows = await this.rows
      .find({ doneAt: null, scheduledAt: { $lte: now } }, { realmId: 1, userId: 1 })
      .sort({ scheduledAt: 1 })
      .limit(limit * 5)
      .lean<Array<Pick<PendingEmailDoc, "realmId" | "userId">>>()
      .exec();
    const users = new Map(rows.map((r) => [batchId(r.realmId, r.userId), { realmId: r.realmId, userId: r.userId }]));
    return [...users.values()].slice(0, limit);
  }

  /**
   * Takes the user's batch for this instance, unless another holds it or it
   * waits out a back-off; returns its failures so far, or null when not taken.
   */
  async lease(realmId: number, userId: number, now: Date): Promise<number | null> {
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    try {
      const batch = await this.batches
        .findOneAndUpdate(
          { _id: batchId(realmId, userId), leaseUntil: { $lte: now }, retryAt: { $lte: now } },
          { $set: { leaseUntil }, $setOnInsert: { failures: 0, retryAt: now } },
          { upsert: true, returnDocument: "after" },
        )
        .lean<BatchDoc>()
        .exec();
      return batch?.failures ?? 0;
    } catch (err) {
      // the batch exists and is held or backing off: the upsert's insert collided with it
      if (isDuplicateKey(err)) return null;
      throw err;
    }
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

  /** The batch is done: the next one starts afresh. */
  async release(realmId: number, userId: number): Promise<void> {
    await this.batches.deleteOne({ _id: batchId(realmId, userId) });
  }

  /** The attempt failed: the batch is tried again after `delayMs`. */
  async backOff(realmId: number, userId: number, failures: number, delayMs: number, now = new Date()): Promise<void> {
    await this.batches.updateOne(
      { _id: batchId(realmId, userId) },
      { $set: { leaseUntil: now, failures, retryAt: new Date(now.getTime() + delayMs) } },
    );
  }

  /** Deletes rows done long enough ago that no copy of their notice can still arrive. */
  async prune(now = new Date()): Promise<void> {
    await this.rows.deleteMany({ doneAt: { $lt: new Date(now.getTime() - KEEP_DONE_MS) } });
  }
}
