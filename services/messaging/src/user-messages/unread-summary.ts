import type { Logger } from "pino";
import { Semaphore } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import { isMention } from "./flags";
import type { UserMessageRepository } from "./user-message.repository";
import type { UnreadBucketRepository } from "./unread-bucket.repository";
import { placeOf } from "./unread-bucket.schema";
import { UnreadSet, type UnreadMessage } from "./unread-set";

/** When rows are folded into the buckets (UNREAD_FOLD_ROWS, UNREAD_FOLD_MARGIN_SECONDS). */
export interface FoldSettings {
  /** newer rows of a user beyond which they are folded */
  rows: number;
  /**
   * only messages at least this old are folded: a message's id is taken before
   * its rows are written, so a send still under way may write a row older than
   * the newest one seen; a send resumed later writes its summary itself (post-message.ts)
   */
  marginSeconds: number;
}

/**
 * A user's unread messages as stored: the buckets (UnreadBucketRepository),
 * which hold everything up to the head's `foldedThrough`, and the rows of
 * newer messages. A send writes only rows (the cheap write: an insert per
 * receiver); folding moves a user's newer unread rows into their buckets
 * (one append per conversation) once there are `settings.rows` of them, in
 * the background, one user at a time.
 */
export class UnreadSummary {
  private readonly folds = new Semaphore(1);
  private readonly folding = new Set<string>();
  /** users whose rows are all too new to fold, until when (ms): a fold then would read them for nothing */
  private readonly notBefore = new Map<string, number>();

  constructor(
    private readonly deps: {
      messages: MessageRepository;
      userMessages: UserMessageRepository;
      unreadBuckets: UnreadBucketRepository;
    },
    readonly settings: FoldSettings,
    private readonly log: Logger,
  ) {}

  /**
   * The user's unread messages, and the messages they starred and collapsed
   * (kept in their head); folds the newer rows afterwards when there are many.
   */
  async of(realmId: number, userId: number): Promise<{ unread: UnreadSet; starred: number[]; collapsed: number[] }> {
    const { buckets, foldedThrough, starred, collapsed } = await this.deps.unreadBuckets.ofUser(realmId, userId);
    const { tail, rows } = await this.newerThan(realmId, userId, foldedThrough);
    if (rows >= this.settings.rows) this.foldLater(realmId, userId);
    return { unread: UnreadSet.fromSummary(buckets, tail), starred, collapsed };
  }

  /** Folds the user's newer rows into their buckets in the background (a no-op while one runs for them). */
  foldLater(realmId: number, userId: number): void {
    const key = `${realmId}:${userId}`;
    if (this.folding.has(key)) return;
    this.folding.add(key);
    void this.folds
      .run(() => this.fold(realmId, userId))
      .catch((err: unknown) => this.log.warn({ err, realmId, userId }, "folding unread rows failed; retried later"))
      .finally(() => this.folding.delete(key));
  }

  /** The user's unread rows newer than `after`, as the summary holds them, with their messages' times. */
  private async newerThan(
    realmId: number,
    userId: number,
    after: number,
  ): Promise<{ tail: Array<UnreadMessage & { timestamp: number }>; rows: number }> {
    const rows = await this.deps.userMessages.unreadAfter(realmId, userId, after);
    const flags = new Map(rows.map((r) => [r.messageId, r.flags]));
    const messages = rows.length ? await this.deps.messages.summaries(realmId, [...flags.keys()]) : [];
    const tail = messages.map((m) => {
      const f = flags.get(m.messageId)!;
      return {
        id: m.messageId,
        ...placeOf(m),
        mentioned: isMention(f),
        direct: f.includes("mentioned"),
        timestamp: m.timestamp,
      };
    });
    return { tail, rows: rows.length };
  }

  /** The repair path: the user's summary dropped and rebuilt from all their rows (every row read once). */
  async rebuild(realmId: number, userId: number): Promise<void> {
    const { unreadBuckets, userMessages } = this.deps;
    await unreadBuckets.reset(realmId, userId);
    const marked = await userMessages.withAnyFlag(realmId, userId, ["starred", "collapsed"]);
    for (const flag of ["starred", "collapsed"]) {
      const ids = marked.filter((r) => r.flags.includes(flag)).map((r) => r.messageId);
      await unreadBuckets.setUserFlag(realmId, userId, ids, flag, true);
    }
    await this.fold(realmId, userId);
  }

  /**
   * Appends the user's unread rows of messages older than the margin to their
   * buckets and moves the head past them; then takes
   * out again those read meanwhile (their request may have updated the
   * buckets before the append). Until the newest row is old enough, a user
   * whose rows are all newer than the margin is not folded again.
   */
  private async fold(realmId: number, userId: number): Promise<void> {
    const key = `${realmId}:${userId}`;
    if ((this.notBefore.get(key) ?? 0) > Date.now()) return;
    const { unreadBuckets, userMessages } = this.deps;
    const { foldedThrough } = await unreadBuckets.ofUser(realmId, userId);
    const { tail } = await this.newerThan(realmId, userId, foldedThrough);
    const cutoff = Date.now() / 1000 - this.settings.marginSeconds;
    const old = tail.filter((m) => m.timestamp < cutoff).map((m) => m.id);
    if (!old.length) {
      const oldest = Math.min(...tail.map((m) => m.timestamp));
      if (Number.isFinite(oldest)) this.notBefore.set(key, (oldest + this.settings.marginSeconds) * 1000);
      return;
    }
    this.notBefore.delete(key);
    const through = Math.max(...old);
    const folded = tail.filter((m) => m.id <= through);
    await unreadBuckets.add(
      realmId,
      folded.map((m) => ({
        userId,
        id: m.id,
        place: { streamId: m.streamId, topic: m.topic, participants: m.participants },
        mentioned: m.mentioned,
        direct: m.direct,
      })),
    );
    await unreadBuckets.setFoldedThrough(realmId, userId, through);
    const ids = folded.map((m) => m.id);
    const now = await userMessages.flagsOf(realmId, userId, ids);
    const readSince = ids.filter((id) => now.get(id)?.includes("read") ?? true);
    await unreadBuckets.remove(realmId, [userId], readSince);
  }
}
