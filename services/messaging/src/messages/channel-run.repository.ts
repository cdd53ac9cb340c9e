import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { channelRunSchema, type ChannelEntry, type ChannelRunDoc } from "./channel-run.schema";

/**
 * Entries per run: a send rewrites its run (on the embedded database, the
 * whole document), and a load reads a channel's newest 50,000 messages in
 * 50,000 / RUN_SIZE documents.
 */
export const RUN_SIZE = 128;
/** Rewrites of a run that concurrent sends got ahead of, before giving up. */
const MAX_REWRITES = 10;

/**
 * These entries as full runs covering the channel above `since` (one empty
 * run when there are none, which still records the coverage): what a load
 * stores, and what the bench's bulk seeder writes as sends would have.
 */
export function fullRuns(realmId: number, streamId: number, since: number, entries: ChannelEntry[]): ChannelRunDoc[] {
  const runs: ChannelRunDoc[] = [];
  for (let i = 0; i < entries.length || !runs.length; i += RUN_SIZE) {
    const part = entries.slice(i, i + RUN_SIZE);
    const ids = part.map((e) => e.messageId);
    runs.push({
      realmId,
      streamId,
      since,
      minId: ids.length ? Math.min(...ids) : since,
      maxId: ids.length ? Math.max(...ids) : since,
      // full: sends append to the runs they make
      count: RUN_SIZE,
      ids,
      senders: part.map((e) => e.senderId),
      topics: part.map((e) => e.topic),
      wildcards: part.filter((e) => e.streamWildcard).map((e) => e.messageId),
      version: 0,
    });
  }
  return runs;
}

/** What a channel's load found in its runs, and from where down they cannot tell. */
export interface RunsAbove {
  entries: ChannelEntry[];
  /** the runs hold every message of the channel above it (Infinity: none) */
  coveredAbove: number;
}

/**
 * The channel's messages as ChannelMessageCache loads them, in runs of
 * RUN_SIZE (channel-run.schema.ts): a send appends to a run with room, and
 * an edit, move or deletion rewrites the runs holding its messages.
 */
export class ChannelRunRepository extends TenantRepository<ChannelRunDoc> {
  constructor(conn: Connection) {
    super(conn.model<ChannelRunDoc>("ChannelRun", channelRunSchema));
  }

  /** Records a new message of the channel (or one moved in): one write. */
  async append(realmId: number, streamId: number, entries: ChannelEntry[]): Promise<void> {
    if (!entries.length) return;
    const ids = entries.map((e) => e.messageId);
    await this.upsertOne(
      realmId,
      { streamId, count: { $lt: RUN_SIZE } },
      {
        $push: {
          ids: { $each: ids },
          senders: { $each: entries.map((e) => e.senderId) },
          topics: { $each: entries.map((e) => e.topic) },
          wildcards: { $each: entries.filter((e) => e.streamWildcard).map((e) => e.messageId) },
        },
        $inc: { count: entries.length, version: 1 },
        $min: { minId: Math.min(...ids) },
        $max: { maxId: Math.max(...ids) },
        // a run made now covers from the first message it holds; the channel's older ones may be in no run
        $setOnInsert: { since: Math.min(...ids) - 1 },
      },
    );
  }

  /**
   * The highest id the channel's runs hold (or held: a message deleted or moved
   * out leaves it), so at least its newest message's; undefined when no run
   * holds any (a channel older than the runs, or empty).
   */
  async newestId(realmId: number, streamId: number): Promise<number | undefined> {
    const run = await this.findOne(realmId, { streamId }, { sort: { maxId: -1 }, projection: { maxId: 1 } });
    return run?.maxId;
  }

  /** Stores messages a load read from the messages, which the runs did not cover above `since`. */
  async store(realmId: number, streamId: number, since: number, entries: ChannelEntry[]): Promise<void> {
    await this.insertMany(fullRuns(realmId, streamId, since, entries));
  }

  /** The channel's messages above `from` that its runs hold (any order, an id possibly twice), and how far down they go. */
  async above(realmId: number, streamId: number, from: number): Promise<RunsAbove> {
    const runs = await this.find(realmId, { streamId, maxId: { $gt: from } });
    let coveredAbove = Math.min(Infinity, ...runs.map((r) => r.since));
    // a run wholly below `from` began below it (its since is below its ids): the runs cover everything above
    if (coveredAbove > from && (await this.findOne(realmId, { streamId, maxId: { $lte: from } }))) coveredAbove = from;
    const entries: ChannelEntry[] = [];
    for (const r of runs) {
      const wildcards = new Set(r.wildcards);
      r.ids.forEach((id, i) => {
        if (id <= from) return;
        const entry: ChannelEntry = { messageId: id, senderId: r.senders[i]!, topic: r.topics[i]! };
        entries.push(wildcards.has(id) ? { ...entry, streamWildcard: true } : entry);
      });
    }
    return { entries, coveredAbove };
  }

  /**
   * Records whether a message of the channel mentions its whole channel (a
   * content edit): in the runs holding it, none when it is older than they
   * cover (a load reads it from the messages then, as edited). One update,
   * which writes nothing when the runs say so already; a concurrent rewrite,
   * conditional on the run's version, reads the run again.
   */
  async setWildcard(realmId: number, streamId: number, messageId: number, on: boolean): Promise<void> {
    await this.updateMany(
      realmId,
      {
        streamId,
        minId: { $lte: messageId },
        maxId: { $gte: messageId },
        ids: messageId,
        wildcards: on ? { $ne: messageId } : messageId,
      },
      { [on ? "$addToSet" : "$pull"]: { wildcards: messageId }, $inc: { version: 1 } },
    );
  }

  /**
   * Messages of these channels deleted (`to` undefined), or moved to a channel
   * and topic: in the runs of that channel renamed where they are, in others'
   * runs removed.
   * Returns the ids renamed where they were; the caller appends the rest to
   * the new channel's runs.
   */
  async rewrite(
    realmId: number,
    streamIds: number[],
    messageIds: number[],
    to?: { streamId: number; topic: string },
  ): Promise<Set<number>> {
    const wanted = new Set(messageIds);
    const renamed = new Set<number>();
    // the runs of their channels whose span holds them
    const spanning = {
      streamId: { $in: [...new Set([...streamIds, ...(to ? [to.streamId] : [])])] },
      maxId: { $gte: Math.min(...messageIds) },
      minId: { $lte: Math.max(...messageIds) },
    };
    for (let attempt = 0; attempt < MAX_REWRITES; attempt++) {
      let stale = false;
      for (const r of await this.find(realmId, spanning)) {
        if (!r.ids.some((id) => wanted.has(id))) continue;
        const stays = to?.streamId === r.streamId;
        const kept = { ids: [] as number[], senders: [] as number[], topics: [] as string[] };
        r.ids.forEach((id, i) => {
          if (wanted.has(id) && !stays) return;
          kept.ids.push(id);
          kept.senders.push(r.senders[i]!);
          kept.topics.push(wanted.has(id) ? to!.topic : r.topics[i]!);
        });
        const keptIds = new Set(kept.ids);
        const wildcards = (r.wildcards ?? []).filter((id) => keptIds.has(id));
        const written = await this.updateOne(
          realmId,
          { _id: r._id, version: r.version },
          {
            $set: { ...kept, wildcards, count: Math.max(r.count - (r.ids.length - kept.ids.length), 0) },
            $inc: { version: 1 },
          },
        );
        if (!written) stale = true;
        else if (stays) r.ids.filter((id) => wanted.has(id)).forEach((id) => renamed.add(id));
      }
      // a send appended to a run meanwhile: the runs still holding the messages are read and rewritten again
      if (!stale) return renamed;
    }
    throw new Error(
      `channel runs of realm ${realmId} kept changing while ${messageIds.length} messages were rewritten`,
    );
  }
}
