import { Schema } from "mongoose";

/** A direct-message conversation: its participants share one recipient id in both directions (FL 327). */
export interface ConversationDoc {
  realmId: number;
  /** sorted participant ids joined by "," */
  key: string;
  userIds: number[];
  recipientId: number;
  /** the newest message's id, 0 before the first (recent_private_conversations) */
  lastMessageId: number;
}

export const conversationSchema = new Schema<ConversationDoc>(
  {
    realmId: { type: Number, required: true },
    key: { type: String, required: true },
    userIds: { type: [Number], required: true },
    recipientId: { type: Number, required: true },
    lastMessageId: { type: Number, default: 0 },
  },
  { collection: "conversations", versionKey: false },
);
// ConversationRepository.byUsers / ensure (sends, dm: narrows): a conversation by its participants
conversationSchema.index({ realmId: 1, key: 1 }, { unique: true });
// ConversationRepository.recentOf (register's recent_private_conversations): a user's conversations
conversationSchema.index({ realmId: 1, userIds: 1 });
