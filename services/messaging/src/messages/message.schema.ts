import { Schema } from "mongoose";
import type { messaging, ReactionType } from "@teamchat/shared";

export type MessageType = "stream" | "private";

/** One user's emoji reaction (Zulip's Reaction row); a user has at most one per emoji code and type. */
export interface Reaction {
  emojiName: string;
  emojiCode: string;
  reactionType: ReactionType;
  userId: number;
}

/** A widget's data or change attached to a message (Zulip's SubMessage), in the order added. */
export interface StoredSubmessage {
  /** Zulip's SubMessage.id: one sequence across organizations, as message ids */
  id: number;
  senderId: number;
  msgType: string;
  /** JSON, as the widget reads it */
  content: string;
}

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
   * Who received it (the users with a usermessage row), where it is stored: a direct
   * message's participants; a channel message's when it is not receivedBySubscription
   * (sent before read states, imported, or moved to another channel, where Zulip gives
   * the new channel's subscribers rows). It is the user's "personal history" that most
   * narrows search, and what keeps protected channel history from later subscribers.
   */
  receivers: number[];
  /**
   * A channel message whose receivers are not stored: they are the users whose read
   * state's subscription intervals hold it (ReceiverCache), so that a send to a channel
   * writes nothing per subscriber (docs/adr/0053-receivers-by-subscription.md).
   */
  receivedBySubscription?: true;
  /**
   * A message received by subscription that mentions its whole channel (@**all**,
   * @**everyone**, @**channel**, @**stream**; not silently, not in a quote): each of
   * its receivers has stream_wildcard_mentioned and wildcard_mentioned without a row
   * for it (CHANNEL_WILDCARD_FLAGS), so that an @all send writes nothing per
   * subscriber. Other messages with one (direct, imported, moved to another channel,
   * sent before this was stored) keep those flags in their receivers' rows.
   */
  streamWildcard?: true;
  content: string;
  renderedContent: string;
  /** has:link, has:image, has:attachment (contentFeatures of renderedContent); absent until backfilled on older messages */
  hasLink?: boolean;
  hasImage?: boolean;
  hasAttachment?: boolean;
  timestamp: number;
  client: string;
  /** Zulip's edit_history: one entry per edit or move, oldest first; absent if never edited or moved */
  editHistory?: messaging.EditHistoryEntry[];
  /** the last content edit (Zulip's last_edit_timestamp) */
  lastEditTimestamp?: number;
  /** the last move to another topic or channel, resolving a topic excepted (last_moved_timestamp) */
  lastMovedTimestamp?: number;
  /** in the order added; absent on messages stored before reactions existed, which have none */
  reactions?: Reaction[];
  /** absent when none: a widget's submessage (a /poll or /todo message) and the changes made to it */
  submessages?: StoredSubmessage[];
  /** Zulip's Message.MessageType for the one kind that is not normal: a "marked this topic as resolved" notice */
  messageType?: "resolve_topic_notification";
  /**
   * The key of a send the client may retry (SendReceiptRepository): a retry after
   * an attempt whose outcome was unknown (its connection to the database lost)
   * finds the message here instead of posting it again.
   */
  sendKey?: string;
}

const reactionSchema = new Schema<Reaction>(
  {
    emojiName: { type: String, required: true },
    emojiCode: { type: String, required: true },
    reactionType: { type: String, required: true },
    userId: { type: Number, required: true },
  },
  { _id: false },
);

const submessageSchema = new Schema<StoredSubmessage>(
  {
    id: { type: Number, required: true },
    senderId: { type: Number, required: true },
    msgType: { type: String, required: true },
    content: { type: String, required: true },
  },
  { _id: false },
);

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
    receivedBySubscription: { type: Boolean },
    streamWildcard: { type: Boolean },
    content: { type: String, required: true },
    renderedContent: { type: String, required: true },
    hasLink: { type: Boolean },
    hasImage: { type: Boolean },
    hasAttachment: { type: Boolean },
    timestamp: { type: Number, required: true },
    client: { type: String, required: true },
    editHistory: { type: [Schema.Types.Mixed], default: undefined },
    lastEditTimestamp: { type: Number },
    lastMovedTimestamp: { type: Number },
    reactions: { type: [reactionSchema], default: [] },
    submessages: { type: [submessageSchema], default: undefined },
    messageType: { type: String },
    sendKey: { type: String },
  },
  { collection: "messages", versionKey: false },
);
// Each index serves MessageRepository.walk() for one kind of narrow (narrowSource picks it): equality
// fields, then a range of message ids. byId / byIds / window's anchor: a message by id; narrows with
// no better index (channels:public) walk realm-wide ranges; a search is the search engine's.
messageSchema.index({ realmId: 1, messageId: 1 }, { unique: true });
// channel: narrows
messageSchema.index({ realmId: 1, streamId: 1, messageId: 1 });
// channel: + topic: narrows
messageSchema.index({ realmId: 1, streamId: 1, topicKey: 1, messageId: 1 });
// dm: narrows (one conversation) and each channel's messages by recipient
messageSchema.index({ realmId: 1, recipientId: 1, messageId: 1 });
// sender: narrows
messageSchema.index({ realmId: 1, senderId: 1, messageId: 1 });
// personal history where stored (what the user received: narrows without a readable channel, is:dm,
// dm-including:), newestReceivedIn, newestReceivedAbove, topicsReceivedBy
messageSchema.index({ realmId: 1, receivers: 1, messageId: 1 });
// is:mentioned's channel-wide wildcard mentions (MessageRepository.channelWildcards): an entry for those
// messages only, as Zulip's partial index on UserMessage's wildcard flags, so that no other send pays for it
messageSchema.index(
  { realmId: 1, streamWildcard: 1, messageId: 1 },
  { partialFilterExpression: { streamWildcard: true } },
);
