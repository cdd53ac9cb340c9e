import { Schema } from "mongoose";

/** Zulip's AlertWord: a word or phrase whose appearance in a message flags it for the user. */
export interface AlertWordDoc {
  realmId: number;
  userId: number;
  /** as the user wrote it */
  word: string;
  /** lowercased: alert words compare case-insensitively, as in Zulip */
  wordKey: string;
  /** from IdAllocator: the order words are listed in (Zulip lists them by id) */
  wordId: number;
}

export const alertWordSchema = new Schema<AlertWordDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    word: { type: String, required: true },
    wordKey: { type: String, required: true },
    wordId: { type: Number, required: true },
  },
  { collection: "alertwords", versionKey: false },
);
// AlertWordRepository.ofRealm (the realmId prefix), ofUser (realmId+userId) and remove; one row per user and
// lowercased word, so concurrent adds of one word keep one
alertWordSchema.index({ realmId: 1, userId: 1, wordKey: 1 }, { unique: true });
