import { Schema } from "mongoose";

/** Zulip's RealmEmoji: a custom emoji and its image. */
export interface RealmEmojiDoc {
  realmId: number;
  emojiId: number;
  name: string;
  /**
   * The name while the emoji is active, a per-emoji placeholder once
   * deactivated: a unique index on it is Zulip's "one active emoji per name".
   */
  activeNameKey: string;
  /** `<id>.<extension>`: the last segment of its source_url */
  fileName: string;
  /** the image's chunks in the FileStore */
  fileId: string;
  contentType: string;
  size: number;
  authorId: number | null;
  deactivated: boolean;
}

export const realmEmojiSchema = new Schema<RealmEmojiDoc>(
  {
    realmId: { type: Number, required: true },
    emojiId: { type: Number, required: true },
    name: { type: String, required: true },
    activeNameKey: { type: String, required: true },
    fileName: { type: String, required: true },
    fileId: { type: String, required: true },
    contentType: { type: String, required: true },
    size: { type: Number, required: true },
    authorId: { type: Number, default: null },
    deactivated: { type: Boolean, default: false },
  },
  { collection: "realm_emoji", versionKey: false },
);
// one emoji per id; all (GET /realm/emoji, register) reads the organization's in id order
realmEmojiSchema.index({ realmId: 1, emojiId: 1 }, { unique: true });
// activeByName, insert: one active emoji per name
realmEmojiSchema.index({ realmId: 1, activeNameKey: 1 }, { unique: true });
// byFileName (the image route)
realmEmojiSchema.index({ realmId: 1, fileName: 1 });
