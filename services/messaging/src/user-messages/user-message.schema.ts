import { Schema } from "mongoose";

/** Zulip's per-user message flags (read, starred, mentioned, ...), one row per recipient of a message. */
export interface UserMessageDoc {
  realmId: number;
  userId: number;
  messageId: number;
  flags: string[];
}

export const userMessageSchema = new Schema<UserMessageDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    messageId: { type: Number, required: true },
    flags: { type: [String], default: [] },
  },
  { collection: "usermessages", versionKey: false },
);
// UserMessageRepository.flagsOf (flags of the messages a fetch returns); deliver(): one row per user and message
userMessageSchema.index({ realmId: 1, userId: 1, messageId: 1 }, { unique: true });
// UserMessageRepository.idsWithFlag (is:starred / is:unread narrows, unread counts, starred_messages): a user's rows by flag
userMessageSchema.index({ realmId: 1, userId: 1, flags: 1 });
