import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository, type TenantFilter, type messaging } from "@teamchat/shared";
import type { NarrowCondition, ReceivedRanges } from "../narrow/conditions";
import { ascending, narrowMatch, narrowSource, type Match, type NarrowSource } from "../narrow/plan";
import { OPEN, inIntervals } from "../user-messages/read-state";
import type { SearchEngine } from "../search/search-engine";
import type { MessageCache } from "./message-cache";
import type { ChannelRunRepository } from "./channel-run.repository";
import { contentFeatures, type ContentFeatures } from "./content-features";
import { sameReaction, type ReactionKey } from "./message-reactions";
import { messageSchema, type MessageDoc, type Reaction, type StoredSubmessage } from "./message.schema";
import type { ChannelEntry } from "./channel-run.schema";

type Filter = TenantFilter<MessageDoc>;

/**
 * The fields an edit sets. A content edit of a message received by
 * subscription says whether it now mentions its whole channel: stored only
 * when it does (MessageDoc.streamWildcard), removed when not.
 */
export type MessageEdit = Partial<Omit<MessageDoc, "streamWildcard">> & { streamWildcard?: boolean };

/** Messages sentSince() reads per page. */
const SINCE_PAGE = 500;

const topicNarrow = (streamId: number, key: string): NarrowCondition[] => [
  { kind: "channel", streamId },
  { kind: "topic", key },
];

/**
 * Ids asked of the search engine at a time: a page's worth, within bounds. Not
 * fewer than a full page of Zulip's web app: for a few rows PostgreSQL's planner
 * walks the ids backwards testing each, which for a rare word reads the whole
 * history (docs/adr/0037-full-text-search.md).
 */
const MIN_SEARCH_PAGE = 100;
const MAX_SEARCH_PAGE = 1000;

/** Fields whose change a message's entry in the search index follows. */
const SEARCHED_FIELDS: Array<keyof MessageDoc> = ["content", "renderedContent", "topic", "streamId", "recipientId"];

/** A list of ids is read as a range when it spans at most this many ids per id wanted. */
const DENSE_CHUNK_SPAN = 2;

/**
 * The messages with these ids and possibly others between them: a range when
 * the ids are dense (several times cheaper than `$in` on SecantusDB), else `$in`.
 */
function idsFilter(ids: number[]): Filter {
  const [lo, hi] = [Math.min(...ids), Math.max(...ids)];
  return { messageId: hi - lo < DENSE_CHUNK_SPAN * ids.length ? { $gte: lo, $lte: hi } : { $in: ids } };
}
/** First width of an id range, in ids, relative to the matches wanted. */
const FIRST_RANGE_PER_MATCH = 2;
const MIN_RANGE = 64;
/** An id range is widened at most this much at a time... */
const MAX_GROWTH = 8;
/** ...and kept to about this many documents read, however sparse the matches among them. */
const ROWS_PER_READ = 2000;

/** What flags and unread_msgs need of a message (MessageRepository.summaries). */
export type MessageSummary = Pick<
  MessageDoc,
  | "messageId"
  | "senderId"
  | "type"
  | "streamId"
  | "topic"
  | "topicKey"
  | "receivers"
  | "receivedBySubscription"
  | "streamWildcard"
>;

/** What a channel's runs hold of each of its messages (ChannelEntry), as read from the messages. */
const ENTRY_FIELDS = { messageId: 1, senderId: 1, topic: 1, streamWildcard: 1 } as const;

/**
 * Messages, and the reads that answer narrows.
 *
 * Every read is bounded by the page it returns, not by the history: a narrow is
 * read as successive ranges of message ids on one index (equality fields, then a
 * messageId range), widened by the density of matches seen so far, and the
 * narrow's other conditions are tested in memory. Flags (is:starred,
 * is:mentioned, is:unread) are read as their lists of ids, and is:followed /
 * is:muted as their topics' and channels' indexes (walk's union). A narrow with
 * a search, or with a condition the search engine's index selects by
 * (PostgreSQL's partial indexes of has:link/image/attachment and is:resolved),
 * is read through the engine, a page of ids at a time; the engine's index is
 * kept current by every write here. What no index holds (has:reaction, in:home,
 * negations) costs the rows between the page's matches, each read capped near
 * ROWS_PER_READ rows. Filter + sort + limit is not used: the embedded engine
 * (SecantusDB) reads every row matching the filter before it applies a limit,
 * and ignores indexes under `$and`/`$nor`/`$in` with a range; MongoDB serves
 * these same ranges from the compound indexes.
 */
export class MessageRepository extends TenantRepository<MessageDoc> {
  constructor(
    private readonly conn: Connection,
    private readonly ids: IdAllocator,
    private readonly cache: MessageCache,
    private readonly search: SearchEngine,
    /** the channels' runs, changed with the messages they hold */
    private readonly runs: ChannelRunRepository,
  ) {
    super(conn.model<MessageDoc>("Message", search.messageSchema ?? messageSchema));
  }

  /**
   * Every message with an id below `id`, across organizations, `batch` at a
   * time in no particular order: one pass over the collection, for maintenance
   * (the search index's and the content features' backfills).
   */
  async *everyMessageBelow(id: number, batch: number): AsyncGenerator<MessageDoc[]> {
    let rows: MessageDoc[] = [];
    for await (const m of this.conn
      .collection<MessageDoc>("messages")
      .find({ messageId: { $lt: id } }, { batchSize: batch })) {
      rows.push(m);
      if (rows.length === batch) {
        yield rows;
        rows = [];
      }
    }
    if (rows.length) yield rows;
  }

  async insert(message: Omit<MessageDoc, "messageId">): Promise<MessageDoc> {
    const stored = await this.insertOne({ ...message, messageId: await this.ids.next("message") });
    if (stored.streamId !== null) await this.runs.append(stored.realmId, stored.streamId, [stored]);
    await this.search.index([stored]);
    return stored;
  }

  /** The search index's entries of these messages replaced by what the database holds now. */
  private async reindex(realmId: number, messageIds: number[]): Promise<void> {
    await this.search.index(await this.find(realmId, { messageId: { $in: messageIds } }));
  }

  /**
   * The sender's message sent with this key, if an earlier attempt stored it (rare: read through the
   * sender's messages), indexed for search again: that attempt may have failed before indexing it.
   */
  async sentWithKey(realmId: number, senderId: number, sendKey: string): Promise<MessageDoc | null> {
    const stored = await this.findOne(realmId, { senderId, sendKey });
    if (stored) await this.search.index([stored]);
    return stored;
  }

  byId(realmId: number, messageId: number): Promise<MessageDoc | null> {
    return this.findOne(realmId, { messageId });
  }

  /**
   * Adds a reaction unless its user already has one with its code and type: one
   * conditional write, so that concurrent adds cannot both land. False when they had one.
   */
  async addReaction(realmId: number, messageId: number, reaction: Reaction): Promise<boolean> {
    const key: ReactionKey = {
      userId: reaction.userId,
      emojiCode: reaction.emojiCode,
      reactionType: reaction.reactionType,
    };
    const matched = await this.updateOne(
      realmId,
      { messageId, reactions: { $not: { $elemMatch: key } } },
      { $push: { reactions: reaction } },
    );
    return matched > 0;
  }

  /** A new submessage's id: one sequence across organizations, as Zulip's SubMessage ids. */
  nextSubmessageId(): Promise<number> {
    return this.ids.next("submessage");
  }

  /** Adds a submessage after the message's others; false when the message is gone. */
  async addSubmessage(realmId: number, messageId: number, submessage: StoredSubmessage): Promise<boolean> {
    return (await this.updateOne(realmId, { messageId }, { $push: { submessages: submessage } })) > 0;
  }

  /** Removes the user's reaction with this code and type in one conditional write: the one removed, or null if none. */
  async removeReaction(realmId: number, messageId: number, key: ReactionKey): Promise<Reaction | null> {
    const before = await this.findOneAndUpdate(
      realmId,
      { messageId, reactions: { $elemMatch: key } },
      { $pull: { reactions: key } },
      "before",
    );
    return before?.reactions?.find((r) => sameReaction(r, key)) ?? null;
  }

  /** Where this narrow's messages are read from, the search engine's index included. */
  sourceOf(narrow: NarrowCondition[]): NarrowSource {
    return narrowSource(narrow, (c) => this.search.selects(c));
  }

  /**
   * Up to `limit` matches of the narrow, walking away from `from` (exclusive) in
   * id order: descending (newest first) or ascending.
   */
  async walk(
    realmId: number,
    narrow: NarrowCondition[],
    from: number,
    direction: 1 | -1,
    limit: number,
  ): Promise<MessageDoc[]> {
    if (limit <= 0) return [];
    const source = this.sourceOf(narrow);
    if ("none" in source) return [];
    const match = narrowMatch(narrow);
    if ("search" in source) return this.walkSearch(realmId, narrow, match, from, direction, limit);
    if ("ids" in source) return this.walkIds(realmId, source.ids, match, from, direction, limit);
    if ("index" in source) return this.walkIndex(realmId, source.index, match, from, direction, limit);
    // Each index gives its `limit` matches nearest `from`: the union's nearest are among them.
    const pages = await Promise.all(
      source.union.map((index) => this.walkIndex(realmId, index, match, from, direction, limit)),
    );
    const byId = new Map(pages.flat().map((m) => [m.messageId, m]));
    return [...byId.values()].sort((a, b) => (a.messageId - b.messageId) * direction).slice(0, limit);
  }

  /** walk() on one index: ranges of ids widened by the density of matches, tested in memory. */
  private async walkIndex(
    realmId: number,
    index: Filter,
    match: Match,
    from: number,
    direction: 1 | -1,
    limit: number,
  ): Promise<MessageDoc[]> {
    const newest = await this.newestBound(realmId, index);
    const found: MessageDoc[] = [];
    let edge = direction < 0 ? Math.min(from, newest + 1) : from;
    let width = Math.max(limit * FIRST_RANGE_PER_MATCH, MIN_RANGE);
    while (found.length < limit && (direction < 0 ? edge > 1 : edge < newest)) {
      const [lo, hi] = direction < 0 ? [Math.max(1, edge - width), edge] : [edge + 1, edge + 1 + width];
      const rows = await this.find(
        realmId,
        { ...index, messageId: { $gte: lo, $lt: hi } },
        { sort: { messageId: direction } },
      );
      const matches = rows.filter(match);
      found.push(...matches.slice(0, limit - found.length));
      edge = direction < 0 ? lo : hi - 1;
      const need = limit - found.length;
      const byMatches = matches.length ? (need * width * 1.5) / matches.length : width * MAX_GROWTH;
      const byRows = rows.length ? (ROWS_PER_READ * width) / rows.length : width * MAX_GROWTH;
      width = Math.max(MIN_RANGE, Math.ceil(Math.min(byMatches, byRows, width * MAX_GROWTH)));
    }
    return found;
  }

  /**
   * An id no message of the index lies above: a channel's own newest (its runs'), else the
   * deployment's. Ids come from one counter for every organization, so walking down from the
   * counter through other organizations' ids widens the range read until it spans a whole
   * channel (every message of a 10,000-message channel read for 100).
   */
  private async newestBound(realmId: number, index: Filter): Promise<number> {
    const channel = typeof index.streamId === "number" ? await this.runs.newestId(realmId, index.streamId) : undefined;
    return channel ?? (await this.ids.current("message"));
  }

  /**
   * walk() among `ids` (ascending), which hold every match of the narrow beyond
   * `from` and mostly match: read by id, what other users just read from memory
   * (MessageCache).
   */
  walkAmong(
    realmId: number,
    narrow: NarrowCondition[],
    ids: number[],
    from: number,
    direction: 1 | -1,
    limit: number,
  ): Promise<MessageDoc[]> {
    return this.walkIds(realmId, ids, narrowMatch(narrow), from, direction, limit, limit);
  }

  /**
   * walk() over a known, ascending list of candidate ids (`match` tests
   * membership): read in growing chunks, from memory (MessageCache) or else as
   * a range of ids when the chunk is dense (a range is several times cheaper
   * than `$in` on SecantusDB).
   */
  private async walkIds(
    realmId: number,
    ids: readonly number[],
    match: Match,
    from: number,
    direction: 1 | -1,
    limit: number,
    firstChunk = limit * FIRST_RANGE_PER_MATCH,
  ): Promise<MessageDoc[]> {
    const candidates = direction < 0 ? ids.filter((id) => id < from).reverse() : ids.filter((id) => id > from);
    const found: MessageDoc[] = [];
    let chunk = Math.max(firstChunk, 16);
    for (let i = 0; i < candidates.length && found.length < limit; i += chunk, chunk *= 2) {
      const rows = await this.cache.byIds(realmId, candidates.slice(i, i + chunk), (ids) =>
        this.find(realmId, idsFilter(ids)),
      );
      rows.sort((a, b) => (a.messageId - b.messageId) * direction);
      found.push(...rows.filter(match).slice(0, limit - found.length));
    }
    return found;
  }

  /**
   * walk() for a narrow with a search: pages of ids from the search engine,
   * which applies the search and what else of the narrow it can, read from
   * memory (MessageCache) or the database, the rest of the narrow tested here.
   */
  private async walkSearch(
    realmId: number,
    narrow: NarrowCondition[],
    match: Match,
    from: number,
    direction: 1 | -1,
    limit: number,
  ): Promise<MessageDoc[]> {
    const page = Math.min(Math.max(limit, MIN_SEARCH_PAGE), MAX_SEARCH_PAGE);
    const found: MessageDoc[] = [];
    for (let edge = from; ;) {
      const ids = await this.search.walk(realmId, narrow, edge, direction, page);
      if (!ids.length) return found;
      const rows = await this.cache.byIds(realmId, ids, (ids) => this.find(realmId, idsFilter(ids)));
      rows.sort((a, b) => (a.messageId - b.messageId) * direction);
      found.push(...rows.filter(match).slice(0, limit - found.length));
      if (found.length >= limit || ids.length < page) return found;
      edge = ids[ids.length - 1]!;
    }
  }

  /** Every message of a channel's topic, oldest first. */
  ofTopic(realmId: number, streamId: number, topicKey: string): Promise<MessageDoc[]> {
    return this.walk(realmId, topicNarrow(streamId, topicKey), 0, 1, Infinity);
  }

  /** Zulip's participants_for_topic: who sent or reacted to a message of a channel's topic. */
  async participantsOf(realmId: number, streamId: number, topicKey: string): Promise<Set<number>> {
    const rows = await this.find(
      realmId,
      { streamId, topicKey },
      { projection: { senderId: 1, "reactions.userId": 1 } },
    );
    return new Set(rows.flatMap((m) => [m.senderId, ...(m.reactions ?? []).map((r) => r.userId)]));
  }

  /** The newest message of a channel's topic, or null when it has none left. */
  async newestOfTopic(realmId: number, streamId: number, topicKey: string): Promise<MessageDoc | null> {
    return (await this.walk(realmId, topicNarrow(streamId, topicKey), Infinity, -1, 1))[0] ?? null;
  }

  /** Up to `limit` messages of a channel's topic with ids below `beforeId`, newest first. */
  topicMessagesBefore(
    realmId: number,
    streamId: number,
    topicKey: string,
    beforeId: number,
    limit: number,
  ): Promise<MessageDoc[]> {
    return this.walk(realmId, topicNarrow(streamId, topicKey), beforeId, -1, limit);
  }

  /** A channel's oldest message id (its first_message_id), or null when it has none. */
  async oldestIdOfChannel(realmId: number, streamId: number): Promise<number | null> {
    return (await this.walk(realmId, [{ kind: "channel", streamId }], 0, 1, 1))[0]?.messageId ?? null;
  }

  /** A direct conversation's newest message id, 0 when it has none left. */
  async newestIdOfConversation(realmId: number, recipientId: number): Promise<number> {
    return (await this.walk(realmId, [{ kind: "conversation", recipientId }], Infinity, -1, 1))[0]?.messageId ?? 0;
  }

  /**
   * Applies one edit to messages: the fields it sets and its entry appended to
   * their edit history; their channels' runs follow a move and a channel-wide
   * wildcard mention added or removed.
   */
  async applyEdit(
    realmId: number,
    messageIds: number[],
    edit: MessageEdit,
    entry: messaging.EditHistoryEntry,
  ): Promise<void> {
    const { streamWildcard, ...set } = edit;
    const moved = set.streamId !== undefined && set.streamId !== null && set.topic !== undefined;
    const from = moved ? await this.channelIdsOf(realmId, messageIds) : [];
    await this.updateMany(
      realmId,
      { messageId: { $in: messageIds } },
      {
        $set: { ...set, ...(streamWildcard && { streamWildcard }) },
        ...(streamWildcard === false && { $unset: { streamWildcard: 1 } }),
        $push: { editHistory: entry },
      },
    );
    if (streamWildcard !== undefined) {
      for (const [id, streamId] of await this.channelsOf(realmId, messageIds)) {
        if (streamId !== null) await this.runs.setWildcard(realmId, streamId, id, streamWildcard);
      }
    }
    if (moved) {
      // renamed in the runs of their channel, or out of another's and into the new one's as they now are
      const to = { streamId: set.streamId!, topic: set.topic! };
      const renamed = await this.runs.rewrite(realmId, from, messageIds, to);
      const arrived = messageIds.filter((id) => !renamed.has(id));
      if (arrived.length) {
        const wanted = new Set(arrived);
        const entries = await this.find(realmId, idsFilter(arrived), { projection: ENTRY_FIELDS });
        await this.runs.append(
          realmId,
          to.streamId,
          entries.filter((m) => wanted.has(m.messageId)),
        );
      }
    }
    if (SEARCHED_FIELDS.some((f) => f in set)) await this.reindex(realmId, messageIds);
  }

  /**
   * Zulip's do_update_embedded_data: the message's rendering with its link
   * previews, stored only if its content is still the one rendered (no edit
   * history: the message did not change). False when an edit came first.
   */
  async storeRendering(realmId: number, messageId: number, content: string, renderedContent: string): Promise<boolean> {
    const matched = await this.updateOne(realmId, { messageId, content }, { $set: { renderedContent } });
    if (matched > 0) await this.reindex(realmId, [messageId]);
    return matched > 0;
  }

  /**
   * Stores who received these messages (a move to another channel, after
   * which Zulip's rows are no longer the channel's subscribers of the time):
   * one update per list of receivers.
   */
  async storeReceivers(realmId: number, lists: Array<{ ids: number[]; receivers: number[] }>): Promise<void> {
    for (const { ids, receivers } of lists) {
      await this.updateMany(
        realmId,
        { messageId: { $in: ids } },
        // their channel-wide wildcard mentions are their receivers' rows' from now on (changeReceivers)
        { $set: { receivers }, $unset: { receivedBySubscription: 1, streamWildcard: 1 } },
      );
    }
    await this.reindex(
      realmId,
      lists.flatMap((l) => l.ids),
    );
  }

  /**
   * Stores contentFeatures on these messages (stored before they were kept),
   * decided from their rendering: one update per organization and combination
   * of features.
   */
  async storeContentFeatures(messages: MessageDoc[]): Promise<void> {
    const groups = new Map<string, { realmId: number; features: ContentFeatures; ids: number[] }>();
    for (const m of messages) {
      const features = contentFeatures(m.renderedContent);
      const key = JSON.stringify([m.realmId, features]);
      const group = groups.get(key) ?? groups.set(key, { realmId: m.realmId, features, ids: [] }).get(key)!;
      group.ids.push(m.messageId);
    }
    for (const { realmId, features, ids } of groups.values()) {
      await this.updateMany(realmId, { messageId: { $in: ids } }, { $set: features });
    }
  }

  /** Deletes these messages; returns how many there were. */
  async delete(realmId: number, messageIds: number[]): Promise<number> {
    const from = await this.channelIdsOf(realmId, messageIds);
    const deleted = await this.deleteMany(realmId, { messageId: { $in: messageIds } });
    if (from.length) await this.runs.rewrite(realmId, from, messageIds);
    await this.search.remove(realmId, messageIds);
    return deleted;
  }

  /** The messages among `ids` that match the narrow, oldest first, at most `limit`. */
  byIds(realmId: number, narrow: NarrowCondition[], ids: readonly number[], limit = ids.length): Promise<MessageDoc[]> {
    return this.walk(realmId, [...narrow, { kind: "ids", in: ascending(ids) }], 0, 1, limit);
  }

  /**
   * The channel of each of these messages that exists, null for a direct
   * message (maintenance: the read-state migration's rows).
   */
  async channelsOf(realmId: number, ids: number[]): Promise<Map<number, number | null>> {
    if (!ids.length) return new Map();
    const wanted = new Set(ids);
    const rows = await this.find(realmId, idsFilter(ids), { projection: { messageId: 1, streamId: 1 } });
    return new Map(rows.filter((m) => wanted.has(m.messageId)).map((m) => [m.messageId, m.streamId]));
  }

  /** The channels these messages are in (their runs'). */
  private async channelIdsOf(realmId: number, ids: number[]): Promise<number[]> {
    const channels = await this.channelsOf(realmId, ids);
    return [...new Set(channels.values())].filter((s): s is number => s !== null);
  }

  /** What register's unread_msgs needs of these messages (any order). */
  async summaries(realmId: number, ids: number[]): Promise<Array<MessageSummary>> {
    const wanted = new Set(ids);
    const rows = await this.find(realmId, idsFilter(ids), {
      projection: {
        messageId: 1,
        senderId: 1,
        type: 1,
        streamId: 1,
        topic: 1,
        topicKey: 1,
        receivers: 1,
        receivedBySubscription: 1,
        streamWildcard: 1,
      },
    });
    return rows.filter((m) => wanted.has(m.messageId));
  }

  /**
   * The narrow's messages sent after `sinceSeconds`, oldest first: read newest
   * first a page at a time until one is older (ids grow with time), so only
   * the recent end of the narrow is read (the weekly digest's traffic).
   */
  async sentSince(realmId: number, narrow: NarrowCondition[], sinceSeconds: number): Promise<MessageDoc[]> {
    const found: MessageDoc[] = [];
    for (let from = Infinity; ;) {
      const page = await this.walk(realmId, narrow, from, -1, SINCE_PAGE);
      for (const m of page) {
        if (m.timestamp <= sinceSeconds) return found.reverse();
        found.push(m);
      }
      if (page.length < SINCE_PAGE) return found.reverse();
      from = page[page.length - 1]!.messageId;
    }
  }

  /**
   * A channel's messages with `from < id <= to` as read state needs them (id,
   * sender, topic, a channel-wide wildcard mention), in any order:
   * ChannelMessageCache's load, one range of the channel's index shared by
   * every member.
   */
  channelEntries(realmId: number, streamId: number, from: number, to: number): Promise<ChannelEntry[]> {
    const range = Number.isFinite(to) ? { $gt: from, $lte: to } : { $gt: from };
    return this.find(realmId, { streamId, messageId: range }, { projection: ENTRY_FIELDS });
  }

  /**
   * The ids of the messages a user received by subscription (their intervals
   * per channel) that mention their whole channel, ascending: the mentions
   * is:mentioned finds that no row holds (MessageDoc.streamWildcard). One
   * read of the organization's such messages, on their partial index.
   */
  async channelWildcards(realmId: number, channels: ReceivedRanges): Promise<number[]> {
    const rows = await this.find(realmId, { streamWildcard: true }, { projection: { messageId: 1, streamId: 1 } });
    return rows
      .filter((m) => m.streamId !== null && inIntervals(channels.get(m.streamId), m.messageId))
      .map((m) => m.messageId)
      .sort((a, b) => a - b);
  }

  /** The newest message id given out (in any organization): a subscription starting now covers only later ones. */
  latestId(): Promise<number> {
    return this.ids.current("message");
  }

  /**
   * The id of the newest message of the channel below `from` that the user
   * received by the user's intervals there, or as a stored receiver; -1 if none.
   */
  async newestReceivedIn(
    realmId: number,
    userId: number,
    from: number,
    channel: { streamId: number; intervals: readonly number[] },
  ): Promise<number> {
    const [last] = await this.walk(
      realmId,
      [
        { kind: "channel", streamId: channel.streamId },
        { kind: "receivers", userId, channels: new Map([[channel.streamId, channel.intervals]]) },
      ],
      from,
      -1,
      1,
    );
    return last?.messageId ?? -1;
  }

  /**
   * The id of the newest message above `above` that stores the user among its
   * receivers (a direct message, a moved one); -1 if none. One range of the
   * receivers index: `above` is a message the user is known to have received.
   */
  async newestReceivedAbove(realmId: number, userId: number, above: number): Promise<number> {
    const newest = await this.findOne(
      realmId,
      { receivers: userId, messageId: { $gt: above } },
      { sort: { messageId: -1 }, projection: { messageId: 1 } },
    );
    return newest?.messageId ?? -1;
  }

  /**
   * The topics of a channel's messages that a user received, with their newest
   * message id, most recent first: a channel with protected history shows only
   * these. Reads the user's messages in the channel, which the topics collection
   * cannot answer.
   */
  async topicsReceivedBy(
    realmId: number,
    streamId: number,
    userId: number,
    intervals: readonly number[],
  ): Promise<Array<{ name: string; max_id: number }>> {
    const projection = { topic: 1, topicKey: 1, messageId: 1, receivedBySubscription: 1 };
    const ranges: Array<{ $gt: number; $lte?: number }> = [];
    for (let i = 0; i < intervals.length; i += 2) {
      ranges.push(intervals[i + 1]! >= OPEN ? { $gt: intervals[i]! } : { $gt: intervals[i]!, $lte: intervals[i + 1]! });
    }
    const [stored, ...bySubscription] = await Promise.all([
      this.find(realmId, { streamId, receivers: userId }, { projection }),
      ...ranges.map((messageId) => this.find(realmId, { streamId, messageId }, { projection })),
    ]);
    const rows = [...stored!, ...bySubscription.flat().filter((m) => m.receivedBySubscription)].sort(
      (a, b) => b.messageId - a.messageId,
    );
    const seen = new Map<string, { name: string; max_id: number }>();
    for (const r of rows) if (!seen.has(r.topicKey)) seen.set(r.topicKey, { name: r.topic, max_id: r.messageId });
    return [...seen.values()];
  }
}
