import type { NarrowCondition } from "../narrow";
import { narrowMatch, type MessageRepository } from "./message.repository";
import type { MessageDoc } from "./message.schema";
import type { ChannelTail, RecentMessages } from "./recent-messages";

/** One window's reads: the narrow, its test, and the channel's newest messages when it is a channel narrow. */
interface Read {
  realmId: number;
  narrow: NarrowCondition[];
  match: (m: MessageDoc) => boolean;
  tail: ChannelTail | null;
}

export interface MessageWindow {
  /** older matches, oldest first */
  before: MessageDoc[];
  /** the anchor itself, when it matches and was asked for */
  anchor: MessageDoc | null;
  /** newer matches, oldest first */
  after: MessageDoc[];
}

/**
 * GET /messages' reads: a channel narrow's newest messages from memory
 * (RecentMessages), everything else, and what is older than memory holds,
 * from the database.
 */
export class MessageHistory {
  constructor(
    private readonly messages: MessageRepository,
    private readonly recent: RecentMessages,
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
    const tail = streamId === undefined ? null : await this.recent.of(q.realmId, streamId);
    const read: Read = { realmId: q.realmId, narrow: q.narrow, match: narrowMatch(q.narrow), tail };
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
    return this.messages.byId(realmId, id);
  }

  /** Matches older than `from`, newest first: the tail's, then the database's older than the tail. */
  private async older({ realmId, narrow, match, tail }: Read, from: number, limit: number): Promise<MessageDoc[]> {
    if (limit <= 0) return [];
    if (!tail) return this.messages.walk(realmId, narrow, from, -1, limit);
    const found: MessageDoc[] = [];
    for (let i = tail.messages.length - 1; i >= 0 && found.length < limit; i--) {
      const m = tail.messages[i]!;
      if (m.messageId < from && match(m)) found.push(m);
    }
    if (found.length === limit || tail.from === 0) return found;
    return [
      ...found,
      ...(await this.messages.walk(realmId, narrow, Math.min(from, tail.from), -1, limit - found.length)),
    ];
  }

  /** Matches newer than `from`, oldest first: from the tail when it holds everything after `from`. */
  private async newer({ realmId, narrow, match, tail }: Read, from: number, limit: number): Promise<MessageDoc[]> {
    if (limit <= 0) return [];
    if (!tail || from < tail.from) return this.messages.walk(realmId, narrow, from, 1, limit);
    return tail.messages.filter((m) => m.messageId > from && match(m)).slice(0, limit);
  }
}
