import { Schema } from "mongoose";

export type MessageType = "stream" | "private";

export interface MessageDoc {
  realmId: number;
  messageId: number;
  senderId: number;
  type: MessageType;
  /** the channel's recipient id, or the direct conversation's (shared by both directions, FL 327) */
  recipientId: number;
  /** channel messages only */
  streamId: number | null;
  topic: string;
  /** lowercased topic: topic narrows and topic lists compare case-insensitively, as in Zulip */
  topicKey: string;
  /**
   * Who received it (the users with a usermessage row): a direct message's participants, a
   * channel's subscribers at send time. It is the user's "personal history" that most
   * narrows search (Zulip joins usermessage rows; here one query on messages serves it),
   * and what keeps protected channel history from later subscribers.
   */
  receivers: number[];
  content: string;
  renderedContent: string;
  timestamp: number;
  client: string;
}

export const messageSchema = new Schema<MessageDoc>(
  {
    realmId: { type: Number, required: true },
    messageId: { type: Number, required: true },
    senderId: { type: Number, required: true },
    type: { type: String, required: true },
    recipientId: { type: Number, required: true },
    streamId: { type: Number, default: null },
    topic: { type: String, default: "" },
    topicKey: { type: String, default: "" },
    receivers: { type: [Number], default: [] },
    content: { type: String, required: true },
    renderedContent: { type: String, required: true },
    timestamp: { type: Number, required: true },
    client: { type: String, required: true },
  },
  { collection: "messages", versionKey: false },
);
// MessageRepository.byId, byIds (message_ids, first unread, unreads) and window() by id
messageSchema.index({ realmId: 1, messageId: 1 }, { unique: true });
// MessageRepository.window / byIds with a channel narrow, and topics(): a channel's messages by id
messageSchema.index({ realmId: 1, streamId: 1, messageId: 1 });
// MessageRepository.window / byIds over personal history (narrows without a readable channel, dm:, is:dm),
// latestReceivedId, recentDirect: a user's messages by id
messageSchema.index({ realmId: 1, receivers: 1, messageId: 1 });
