import type { NarrowCondition } from "../narrow/conditions";
import { narrowMatch } from "../narrow/plan";
import type { MessageRepository } from "./message.repository";
import type { MessageDoc } from "./message.schema";
import type { ChannelTail, RecentMessages } from "./recent-messages";
import type { ChannelMessageCache, ChannelMessages } from "./channel-message-cache";

/**
 * One window's reads: the narrow, its test, and when it is a channel narrow,
 * the channel's newest messages and the ids of its messages this instance holds.
 */
interface Read {
  realmId: number;
  narrow: NarrowCondition[];
  match: (m: MessageDoc) => boolean;
  tail: ChannelTail | null;
  channel: ChannelMessages | null;
}

export interface MessageWindow {
  /** older matches, oldest first */
  before: MessageDoc[];
  /** the anchor itself, when it matches and was asked for */
  anchor: MessageDoc | null;
  /** newer matches, oldest first */
  after: MessageDoc[];
}

/** The narrow's condition of this kind, if it has one. */
function termOf<K extends NarrowCondition["kind"]>(
  narrow: NarrowCondition[],
  kind: K,
): Extract<NarrowCondition, { kind: K }> | undefined {
  return narrow.find((c): c is Extract<NarrowCondition, { kind: K }> => c.kind === kind);
}

/**
 * GET /messages' reads: a channel narrow's newest messages from memory
 * (RecentMessages); older ones of a channel whose ids this instance holds
 * (ChannelMessageCache) by those ids, so that members reading the same page
 * share its messages (MessageCache); everything else, and what is older than
 * memory holds, from the database.
 */
export class MessageHistory {
  constructor(
    private readonly messages: MessageRepository,
    private readonly recent: RecentMessages,
    private readonly channels: ChannelMessageCache,
  ) {}

  /** Up to `before` matches older than the anchor, the anchor (if `includeAnchor`), up to `after` newer ones. */
  async window(q: {
    realmId: number;
    narrow: NarrowCondition[];
    anchor: number;
    before: number;
    after: number;
    includeAnchor: boolean;
  }): Promise<MessageWindow> {
    const source = this.messages.sourceOf(q.narrow);
    const streamId = "index" in source ? (source.index.streamId as number | undefined) : undefined;
    const [tail, channel] =
      streamId === undefined
        ? [null, null]
        : await Promise.all([this.recent.of(q.realmId, streamId), this.channels.held(q.realmId, streamId)]);
    const read: Read = { realmId: q.realmId, narrow: q.narrow, match: narrowMatch(q.narrow), tail, channel };
    const [before, at, after] = await Promise.all([
      this.older(read, q.anchor, q.before),
      q.includeAnchor ? this.anchor(read, q.anchor, "search" in source) : null,
      this.newer(read, q.anchor, q.after),
    ]);
    return { before: before.reverse(), anchor: at, after };
  }

  /** The anchor message when it matches the narrow; a search's match is the search engine's to say. */
  private async anchor(
    { realmId, narrow, match, tail }: Read,
    id: number,
    search: boolean,
  ): Promise<MessageDoc | null> {
    if (search) return (await this.messages.byIds(realmId, narrow, [id], 1))[0] ?? null;
    const at = await this.byId(realmId, tail, id);
    return at && match(at) ? at : null;
  }

  private byId(realmId: number, tail: ChannelTail | null, id: number): Promise<MessageDoc | null> | MessageDoc | null {
    if (tail && id >= tail.from) return tail.messages.find((m) => m.messageId === id) ?? null;
    // by id through MessageCache: members opening the same first unread share it
    return this.messages.byIds(realmId, [], [id], 1).then(([m]) => m ?? null);
  }

  /** Matches older than `from`, newest first: the tail's, then those older than the tail. */
  private async older(read: Read, from: number, limit: number): Promise<MessageDoc[]> {
    const { match, tail } = read;
    if (limit <= 0) return [];
    if (!tail) return this.walk(read, from, -1, limit);
    const found: MessageDoc[] = [];
    for (let i = tail.messages.length - 1; i >= 0 && found.length < limit; i--) {
      const m = tail.messages[i]!;
      if (m.messageId < from && match(m)) found.push(m);
    }
    if (found.length === limit || tail.from === 0) return found;
    return [...found, ...(await this.walk(read, Math.min(from, tail.from), -1, limit - found.length))];
  }

  /** Matches newer than `from`, oldest first: from the tail when it holds everything after `from`. */
  private async newer(read: Read, from: number, limit: number): Promise<MessageDoc[]> {
    const { match, tail } = read;
    if (limit <= 0) return [];
    if (!tail || from < tail.from) return this.walk(read, from, 1, limit);
    return tail.messages.filter((m) => m.messageId > from && match(m)).slice(0, limit);
  }

  /**
   * Matches beyond `from` (exclusive) away from it: among the channel's held
   * ids where they reach, narrowed by topic and sender in memory, else (and
   * below them) walking the database's index.
   */
  private async walk(read: Read, from: number, direction: 1 | -1, limit: number): Promise<MessageDoc[]> {
    const { realmId, narrow, channel } = read;
    if (!channel || (direction > 0 && from < channel.floor)) {
      return this.messages.walk(realmId, narrow, from, direction, limit);
    }
    const only = {
      topicKey: termOf(narrow, "topic")?.key,
      senderId: termOf(narrow, "sender")?.userId,
    };
    const [after, before] = direction > 0 ? [from, Infinity] : [channel.floor, from];
    const ids = channel.between(after, before, only);
    const found = await this.messages.walkAmong(realmId, narrow, ids, from, direction, limit);
    if (direction > 0 || found.length === limit || channel.floor <= 0) return found;
    const below = Math.min(from, channel.floor + 1);
    return [...found, ...(await this.messages.walk(realmId, narrow, below, -1, limit - found.length))];
  }
}
