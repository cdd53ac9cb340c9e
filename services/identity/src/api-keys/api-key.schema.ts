import { Schema } from "mongoose";

/** One row per issued key; the key itself is never stored, only its SHA-256. */
export interface ApiKeyDoc {
  realmId: number;
  userId: number;
  keyHash: string;
  createdAt: Date;
}

export const apiKeySchema = new Schema<ApiKeyDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    keyHash: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: "api_keys", versionKey: false },
);
// byKey (authentication): the key's hash finds its user
apiKeySchema.index({ realmId: 1, keyHash: 1 }, { unique: true });
