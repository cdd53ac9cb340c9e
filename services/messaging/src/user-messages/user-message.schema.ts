import { Schema } from "mongoose";

/** Zulip's per-user message flags (read, starred, mentioned, ...), one row per recipient of a message. */
export interface UserMessageDoc {
  /**
   * `<realmId>:<userId>:<messageId>`: the primary key makes a
   * row unique without a unique secondary index, which would more than double
   * the cost of writing a channel message's rows on SecantusDB.
   */
  _id: string;
  realmId: number;
  userId: number;
  messageId: number;
  flags: string[];
  /** "read" is missing from flags */
  unread: boolean;
  /** unread, or has a flag besides "read": the rows PersonalIndex loads for a user */
  marked: boolean;
}

/** A row's key: the user's row of a message (UserMessageDoc._id). */
export const userMessageId = (realmId: number, userId: number, messageId: number): string =>
  `${realmId}:${userId}:${messageId}`;

/** The row of one recipient of a message, with their flags. */
export function userMessageRow(realmId: number, userId: number, messageId: number, flags: string[]): UserMessageDoc {
  const unread = !flags.includes("read");
  return {
    _id: userMessageId(realmId, userId, messageId),
    realmId,
    userId,
    messageId,
    flags,
    unread,
    marked: unread || flags.some((f) => f !== "read"),
  };
}

export const userMessageSchema = new Schema<UserMessageDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    messageId: { type: Number, required: true },
    flags: { type: [String], default: [] },
    unread: { type: Boolean, required: true },
    marked: { type: Boolean, required: true },
  },
  { collection: "usermessages", versionKey: false },
);
// UserMessageRepository.markedOf (PersonalIndex's load): a user's unread or flagged rows. The only index:
// each one makes every row write dearer on SecantusDB (docs/adr/0010-query-shapes.md).
userMessageSchema.index({ realmId: 1, userId: 1, marked: 1 });
