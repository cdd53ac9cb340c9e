import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository, type TenantFilter } from "@teamchat/shared";
import type { NarrowCondition } from "../narrow";
import { messageSchema, type MessageDoc } from "./message.schema";

type Filter = TenantFilter<MessageDoc>;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One narrow condition as a filter on messages. */
function conditionFilter(c: NarrowCondition): Filter {
  switch (c.kind) {
    case "channel":
      return { streamId: c.streamId };
    case "channels":
      return { streamId: { $in: c.streamIds } };
    case "topic":
      return { type: "stream", topicKey: c.key };
    case "sender":
      return { senderId: c.userId };
    case "receivers":
      return { receivers: c.userId };
    case "conversation":
      return { type: "private", recipientId: c.recipientId };
    case "dm-including":
      return { type: "private", receivers: { $all: c.userIds } };
    case "direct":
      return { type: "private" };
    case "id":
      return { messageId: c.id };
    case "ids":
      return { messageId: { $in: c.in } };
    case "search":
      return {
        $and: c.words.map((w) => {
          const regex = { $regex: escapeRegex(w), $options: "i" };
          return { $or: [{ content: regex }, { topic: regex }] };
        }),
      };
    case "nothing":
      return { messageId: -1 };
    case "not":
      return { $nor: [conditionFilter(c.term)] };
  }
}

/** The filter of a narrow (its conditions, all of which must hold), and optionally of message ids. */
export function narrowFilter(narrow: NarrowCondition[], messageId?: Filter["messageId"]): Filter {
  const conds = narrow.map(conditionFilter);
  if (messageId !== undefined) conds.push({ messageId });
  if (conds.length === 0) return {};
  return conds.length === 1 ? conds[0]! : { $and: conds };
}

export interface MessageWindow {
  /** older matches, oldest first */
  before: MessageDoc[];
  /** the anchor itself, when it matches and was asked for */
  anchor: MessageDoc | null;
  /** newer matches, oldest first */
  after: MessageDoc[];
}

export class MessageRepository extends TenantRepository<MessageDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<MessageDoc>("Message", messageSchema));
  }

  async insert(message: Omit<MessageDoc, "messageId">): Promise<MessageDoc> {
    return this.insertOne({ ...message, messageId: await this.ids.next("message") });
  }

  byId(realmId: number, messageId: number): Promise<MessageDoc | null> {
    return this.findOne(realmId, { messageId });
  }

  /** Messages matching `filter`, ordered by id (descending = newest first), at most `limit`. */
  private range(realmId: number, filter: Filter, direction: 1 | -1, limit: number): Promise<MessageDoc[]> {
    return this.find(realmId, filter, { sort: { messageId: direction }, limit });
  }

  /**
   * GET /messages around an anchor: up to `before` matches older than it, the
   * anchor (if `includeAnchor`), up to `after` newer ones. A count of 0 skips
   * its query.
   */
  async window(q: {
    realmId: number;
    narrow: NarrowCondition[];
    anchor: number;
    before: number;
    after: number;
    includeAnchor: boolean;
  }): Promise<MessageWindow> {
    const [before, at, after] = await Promise.all([
      q.before > 0 ? this.range(q.realmId, narrowFilter(q.narrow, { $lt: q.anchor }), -1, q.before) : [],
      q.includeAnchor ? this.range(q.realmId, narrowFilter(q.narrow, { $eq: q.anchor }), 1, 1) : [],
      q.after > 0 ? this.range(q.realmId, narrowFilter(q.narrow, { $gt: q.anchor }), 1, q.after) : [],
    ]);
    return { before: before.reverse(), anchor: at[0] ?? null, after };
  }

  /** The messages among `ids` that match the narrow, oldest first, at most `limit`. */
  byIds(realmId: number, narrow: NarrowCondition[], ids: number[], limit = ids.length): Promise<MessageDoc[]> {
    return this.range(realmId, narrowFilter(narrow, { $in: ids }), 1, limit);
  }

  /** The id of the newest message the user received; -1 if none (register's max_message_id). */
  async latestReceivedId(realmId: number, userId: number): Promise<number> {
    const [last] = await this.range(realmId, { receivers: userId }, -1, 1);
    return last?.messageId ?? -1;
  }

  /** The user's newest direct messages, newest first (recent_private_conversations). */
  recentDirect(realmId: number, userId: number, limit: number): Promise<MessageDoc[]> {
    return this.range(realmId, { receivers: userId, type: "private" }, -1, limit);
  }

  /**
   * A channel's topics with their newest message id, most recent first; with
   * `receivedBy`, only of the messages that user received (protected history).
   */
  async topics(
    realmId: number,
    streamId: number,
    receivedBy?: number,
  ): Promise<Array<{ name: string; max_id: number }>> {
    const rows = await this.find(
      realmId,
      { streamId, ...(receivedBy !== undefined ? { receivers: receivedBy } : {}) },
      { projection: { topic: 1, topicKey: 1, messageId: 1 }, sort: { messageId: -1 } },
    );
    const seen = new Map<string, { name: string; max_id: number }>();
    for (const r of rows) if (!seen.has(r.topicKey)) seen.set(r.topicKey, { name: r.topic, max_id: r.messageId });
    return [...seen.values()];
  }
}
