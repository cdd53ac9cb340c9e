import { Schema } from "mongoose";

/** Zulip's SavedSnippet: text a user keeps to insert into messages. */
export interface SavedSnippetDoc {
  realmId: number;
  /** from IdAllocator ("saved_snippet") */
  savedSnippetId: number;
  userId: number;
  title: string;
  content: string;
  /** UNIX seconds */
  dateCreated: number;
}

export const savedSnippetSchema = new Schema<SavedSnippetDoc>(
  {
    realmId: { type: Number, required: true },
    savedSnippetId: { type: Number, required: true },
    userId: { type: Number, required: true },
    title: { type: String, required: true },
    content: { type: String, required: true },
    dateCreated: { type: Number, required: true },
  },
  { collection: "savedsnippets", versionKey: false },
);
// SavedSnippetRepository.ofUser (realmId+userId, by id) and the look-ups by id of one user's snippet
savedSnippetSchema.index({ realmId: 1, userId: 1, savedSnippetId: 1 }, { unique: true });
