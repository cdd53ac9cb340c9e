import { Schema } from "mongoose";

/**
 * A compact summary of a user's unread messages: the ids of one
 * conversation's unread messages within one block of message ids, for the
 * messages up to the user's head document's `foldedThrough`; newer ones are
 * still only rows, folded in later (PersonalIndex). A user's whole unread
 * state (register's unread_msgs, first_unread) is a handful of these
 * documents and the rows since, read with two index look-ups, instead of a row
 * per unread message (docs/adr/0036-unread-summaries.md). Every write that
 * changes the "read" flag or the mentions of a row up to `foldedThrough`
 * changes these in the same operation; UnreadBucketRepository.rebuild
 * recomputes them from the rows.
 */
export interface UnreadBucketDoc {
  /** `<realmId>:<userId>:<conversation>:<block>` (unreadBucketKey) */
  _id: string;
  realmId: number;
  userId: number;
  /** null for a direct message */
  streamId: number | null;
  /** the topic as first written in this bucket; "" for a direct message */
  topic: string;
  /** a direct message's participants, ascending; empty for a channel message */
  participants: number[];
  /** floor(message id / UNREAD_BLOCK); HEAD_BLOCK for the user's head document */
  block: number;
  /** the head document's: every message up to this id is in the buckets, newer ones only in the rows */
  foldedThrough?: number;
  /** the head document's: the user's starred messages (few, set by hand: Zulip's starred_messages) */
  starred?: number[];
  /** the head document's: the user's collapsed messages */
  collapsed?: number[];
  /** unread message ids (in arrival order; a resumed send may repeat one) */
  ids: number[];
  /** the ids among them that mention the user (any mention flag) */
  mentions: number[];
  /** the ids among them that mention the user personally or by group (Zulip's "mentioned" flag) */
  direct: number[];
}

/**
 * Message ids per bucket: small enough that appending to a bucket stays cheap
 * (an update rewrites the document), large enough that 10,000 unread in a few
 * conversations are a few dozen documents.
 */
export const UNREAD_BLOCK = 2048;
/** The block of a user's head document (no ids, only `foldedThrough`). */
export const HEAD_BLOCK = -1;
/** The key of a user's head document. */
export const unreadHeadKey = (realmId: number, userId: number): string => `${realmId}:${userId}:head`;

/** Where an unread message sits: its channel and topic, or its direct conversation's participants. */
export interface UnreadPlace {
  streamId: number | null;
  topic: string;
  participants: number[];
}

/** The conversation part of a bucket's key: channel and topic (case-insensitive), or the participants. */
export const conversationOf = (p: UnreadPlace): string =>
  p.streamId === null ? `d${p.participants.join(",")}` : `s${p.streamId}:${p.topic.toLowerCase()}`;

export const unreadBucketKey = (realmId: number, userId: number, place: UnreadPlace, messageId: number): string =>
  `${realmId}:${userId}:${conversationOf(place)}:${Math.floor(messageId / UNREAD_BLOCK)}`;

export const unreadBucketSchema = new Schema<UnreadBucketDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    streamId: { type: Number, default: null },
    topic: { type: String, default: "" },
    participants: { type: [Number], default: [] },
    block: { type: Number, required: true },
    ids: { type: [Number], default: [] },
    mentions: { type: [Number], default: [] },
    direct: { type: [Number], default: [] },
    foldedThrough: { type: Number },
    starred: { type: [Number], default: undefined },
    collapsed: { type: [Number], default: undefined },
  },
  { collection: "unreadbuckets", versionKey: false },
);
// A user's buckets: their whole unread state (UnreadBucketRepository.ofUser), and the blocks a change touches.
unreadBucketSchema.index({ realmId: 1, userId: 1 });

/** A stored message's place (its receivers are a direct message's participants). */
export const placeOf = (m: {
  type: string;
  streamId?: number | null;
  topic?: string;
  receivers: number[];
}): UnreadPlace =>
  m.type === "private"
    ? { streamId: null, topic: "", participants: [...m.receivers].sort((a, b) => a - b) }
    : { streamId: m.streamId!, topic: m.topic ?? "", participants: [] };
