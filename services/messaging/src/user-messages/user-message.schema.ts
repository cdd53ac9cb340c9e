import { Schema } from "mongoose";

/** Zulip's per-user message flags (read, starred, mentioned, ...), one row per recipient of a message. */
export interface UserMessageDoc {
  realmId: number;
  userId: number;
  messageId: number;
  flags: string[];
  /**
   * Whether "read" is missing from flags, kept beside them so that a user's
   * unread rows are one equality look-up (a `$ne` on flags reads every row).
   */
  unread: boolean;
}

export const userMessageSchema = new Schema<UserMessageDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    messageId: { type: Number, required: true },
    flags: { type: [String], default: [] },
    unread: { type: Boolean, required: true },
  },
  { collection: "usermessages", versionKey: false },
);
// UserMessageRepository.flagsOf (flags of the messages a fetch returns); deliver(): one row per user and message
userMessageSchema.index({ realmId: 1, userId: 1, messageId: 1 }, { unique: true });
// UserMessageRepository.idsWithFlag (is:starred / is:mentioned narrows, starred_messages): a user's rows with a flag
userMessageSchema.index({ realmId: 1, userId: 1, flags: 1 });
// UserMessageRepository.unreadOf (UnreadIndex's load): a user's unread rows
userMessageSchema.index({ realmId: 1, userId: 1, unread: 1 });
