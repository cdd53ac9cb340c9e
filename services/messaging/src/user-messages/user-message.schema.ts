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
}

/** A row's key: the user's row of a message (UserMessageDoc._id). */
export const userMessageId = (realmId: number, userId: number, messageId: number): string =>
  `${realmId}:${userId}:${messageId}`;

/** The row of one recipient of a message, with their flags. */
export function userMessageRow(realmId: number, userId: number, messageId: number, flags: string[]): UserMessageDoc {
  return {
    _id: userMessageId(realmId, userId, messageId),
    realmId,
    userId,
    messageId,
    flags,
    unread: !flags.includes("read"),
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
  },
  { collection: "usermessages", versionKey: false },
);
// UserMessageRepository.withAnyFlag (a user's starred rows, is:mentioned): one entry per flag of a row.
userMessageSchema.index({ realmId: 1, userId: 1, flags: 1 });
// UserMessageRepository.after (the rows newer than a user's unread summary): a range of message ids.
// Each index makes every row write dearer on SecantusDB (docs/adr/0010-query-shapes.md).
userMessageSchema.index({ realmId: 1, userId: 1, messageId: 1 });
