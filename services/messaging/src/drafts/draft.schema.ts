import { Schema } from "mongoose";

/** Zulip's Draft: a message being written, kept so that the user's clients share it. */
export interface DraftDoc {
  realmId: number;
  /** from IdAllocator ("draft") */
  draftId: number;
  userId: number;
  /** "" for an unaddressed draft (Zulip's recipient None) */
  type: "" | "stream" | "private";
  /** as Zulip's Draft.to_dict shows it: the channel, or the other participants (the user alone: themselves) */
  to: number[];
  topic: string;
  content: string;
  /** UNIX seconds with fractions (Zulip's last_edit_time) */
  lastEditTime: number;
}

export const draftSchema = new Schema<DraftDoc>(
  {
    realmId: { type: Number, required: true },
    draftId: { type: Number, required: true },
    userId: { type: Number, required: true },
    type: { type: String, enum: ["", "stream", "private"] },
    to: { type: [Number], required: true },
    topic: { type: String, default: "" },
    content: { type: String, required: true },
    lastEditTime: { type: Number, required: true },
  },
  { collection: "drafts", versionKey: false },
);
// DraftRepository.ofUser and removeAllOf (realmId+userId prefix), and one user's draft by id
draftSchema.index({ realmId: 1, userId: 1, draftId: 1 }, { unique: true });
