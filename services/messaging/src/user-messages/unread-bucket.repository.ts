import type { Connection } from "mongoose";
import { TenantRepository, WriteCoalescer } from "@teamchat/shared";
import {
  HEAD_BLOCK,
  UNREAD_BLOCK,
  unreadHeadKey,
  unreadBucketKey,
  unreadBucketSchema,
  type UnreadBucketDoc,
  type UnreadPlace,
} from "./unread-bucket.schema";

/** An unread message of a user, as the summary holds it. */
export interface UnreadEntry {
  id: number;
  place: UnreadPlace;
  /** any mention flag */
  mentioned: boolean;
  /** Zulip's "mentioned" flag: personally or by a group */
  direct: boolean;
}

const blocksOf = (ids: number[]) => [...new Set(ids.map((id) => Math.floor(id / UNREAD_BLOCK)))];

/** Each user's unread messages, summarized in buckets (UnreadBucketDoc). */
export class UnreadBucketRepository extends TenantRepository<UnreadBucketDoc> {
  constructor(conn: Connection) {
    super(conn.model<UnreadBucketDoc>("UnreadBucket", unreadBucketSchema));
  }

  /**
   * The user's buckets, the newest message id they hold all of (0 before any
   * fold) and the user's starred and collapsed messages: one index look-up.
   */
  async ofUser(
    realmId: number,
    userId: number,
  ): Promise<{ buckets: UnreadBucketDoc[]; foldedThrough: number; starred: number[]; collapsed: number[] }> {
    const docs = await this.find(realmId, { userId });
    const head = docs.find((d) => d.block === HEAD_BLOCK);
    return {
      buckets: docs.filter((d) => d !== head),
      foldedThrough: head?.foldedThrough ?? 0,
      starred: head?.starred ?? [],
      collapsed: head?.collapsed ?? [],
    };
  }

  /** Sets or clears a flag only the user sets ("starred", "collapsed") on messages, in their head. */
  async setUserFlag(realmId: number, userId: number, messageIds: number[], flag: string, on: boolean): Promise<void> {
    if (!messageIds.length || (flag !== "starred" && flag !== "collapsed")) return;
    await this.upsertByKeys(realmId, [
      {
        key: unreadHeadKey(realmId, userId),
        update: {
          $setOnInsert: { realmId, userId, streamId: null, topic: "", participants: [], block: HEAD_BLOCK },
          ...(on ? { $addToSet: { [flag]: { $each: messageIds } } } : { $pull: { [flag]: { $in: messageIds } } }),
        },
      },
    ]);
  }

  /** Records that the user's buckets hold every unread message up to this id (never moving back). */
  async setFoldedThrough(realmId: number, userId: number, messageId: number): Promise<void> {
    await this.upsertByKeys(realmId, [
      {
        key: unreadHeadKey(realmId, userId),
        update: {
          $setOnInsert: { realmId, userId, streamId: null, topic: "", participants: [], block: HEAD_BLOCK },
          $max: { foldedThrough: messageId },
        },
      },
    ]);
  }

  /**
   * Adds unread messages to users' summaries: one upsert per bucket, in one
   * command. Outside a transaction, concurrent callers' entries are written
   * together, each bucket once: the sends to one channel all append to the
   * same receivers' buckets, and SecantusDB rewrites a document per update.
   */
  async add(realmId: number, entries: Array<UnreadEntry & { userId: number }>): Promise<void> {
    if (!entries.length) return;
    if (this.inTransaction) return this.upsertBuckets(realmId, entries);
    await this.#adds.run(String(realmId), entries);
  }

  readonly #adds = new WriteCoalescer<Array<UnreadEntry & { userId: number }>, void>(async (realmId, rounds) => {
    await this.upsertBuckets(Number(realmId), rounds.flat());
    return rounds.map(() => undefined);
  });

  private async upsertBuckets(realmId: number, entries: Array<UnreadEntry & { userId: number }>): Promise<void> {
    const buckets = new Map<
      string,
      { userId: number; place: UnreadPlace; block: number; ids: number[]; mentions: number[]; direct: number[] }
    >();
    for (const e of entries) {
      const key = unreadBucketKey(realmId, e.userId, e.place, e.id);
      let b = buckets.get(key);
      if (!b) {
        b = {
          userId: e.userId,
          place: e.place,
          block: Math.floor(e.id / UNREAD_BLOCK),
          ids: [],
          mentions: [],
          direct: [],
        };
        buckets.set(key, b);
      }
      b.ids.push(e.id);
      if (e.mentioned) b.mentions.push(e.id);
      if (e.direct) b.direct.push(e.id);
    }
    await this.upsertByKeys(
      realmId,
      [...buckets].map(([key, b]) => ({
        key,
        update: {
          $setOnInsert: {
            realmId,
            userId: b.userId,
            streamId: b.place.streamId,
            topic: b.place.topic,
            participants: b.place.participants,
            block: b.block,
          },
          // $push, not $addToSet: several times cheaper on SecantusDB; readers drop repeats
          $push: {
            ids: { $each: b.ids },
            // even empty: the document then has every field (the upsert skips the schema's defaults)
            mentions: { $each: b.mentions },
            direct: { $each: b.direct },
          },
        },
      })),
    );
  }

  /** Drops these messages from these users' summaries (read now, deleted, or no longer theirs). */
  async remove(realmId: number, userIds: number[], ids: number[]): Promise<void> {
    if (!userIds.length || !ids.length) return;
    const scope = { userId: { $in: userIds }, block: { $in: blocksOf(ids) } };
    await this.updateMany(
      realmId,
      { ...scope, ids: { $in: ids } },
      { $pull: { ids: { $in: ids }, mentions: { $in: ids }, direct: { $in: ids } } },
    );
    await this.deleteMany(realmId, { ...scope, ids: { $size: 0 } });
  }

  /** Drops these messages from these users' starred and collapsed messages (deleted, or no longer theirs). */
  async forget(realmId: number, userIds: number[], ids: number[]): Promise<void> {
    if (!userIds.length || !ids.length) return;
    await this.updateMany(
      realmId,
      { userId: { $in: userIds }, block: HEAD_BLOCK },
      { $pull: { starred: { $in: ids }, collapsed: { $in: ids } } },
    );
  }

  /** Empties the user's buckets (everything read); their head stays. */
  async clear(realmId: number, userId: number): Promise<void> {
    await this.deleteMany(realmId, { userId, block: { $ne: HEAD_BLOCK } });
  }

  /** The summary entries of these users for these messages (those unread for them). */
  async entriesOf(realmId: number, userIds: number[], ids: number[]): Promise<Array<UnreadEntry & { userId: number }>> {
    if (!userIds.length || !ids.length) return [];
    const wanted = new Set(ids);
    const docs = await this.find(realmId, {
      userId: { $in: userIds },
      block: { $in: blocksOf(ids) },
      ids: { $in: ids },
    });
    return docs.flatMap((d) => {
      const mentions = new Set(d.mentions);
      const direct = new Set(d.direct);
      const place = { streamId: d.streamId, topic: d.topic, participants: d.participants };
      return [...new Set(d.ids)]
        .filter((id) => wanted.has(id))
        .map((id) => ({ userId: d.userId, id, place, mentioned: mentions.has(id), direct: direct.has(id) }));
    });
  }

  /** Replaces these entries (a move's new place, an edit's mentions): removed where they were, added as given. */
  async replace(realmId: number, entries: Array<UnreadEntry & { userId: number }>): Promise<void> {
    const byUser = new Map<number, number[]>();
    for (const e of entries) (byUser.get(e.userId) ?? byUser.set(e.userId, []).get(e.userId)!).push(e.id);
    for (const [userId, ids] of byUser) await this.remove(realmId, [userId], ids);
    await this.add(realmId, entries);
  }

  /** Drops the user's whole summary, head included (the repair path rebuilds it from the rows). */
  async reset(realmId: number, userId: number): Promise<void> {
    await this.deleteMany(realmId, { userId });
  }
}
