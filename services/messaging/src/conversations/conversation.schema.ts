import { Schema } from "mongoose";

/** A direct-message conversation: its participants share one recipient id in both directions (FL 327). */
export interface ConversationDoc {
  realmId: number;
  /** sorted participant ids joined by "," */
  key: string;
  userIds: number[];
  recipientId: number;
}

export const conversationSchema = new Schema<ConversationDoc>(
  {
    realmId: { type: Number, required: true },
    key: { type: String, required: true },
    userIds: { type: [Number], required: true },
    recipientId: { type: Number, required: true },
  },
  { collection: "conversations", versionKey: false },
);
// ConversationRepository.byUsers / ensure (sends, dm: narrows): a conversation by its participants
conversationSchema.index({ realmId: 1, key: 1 }, { unique: true });
