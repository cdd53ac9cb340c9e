import { Schema } from "mongoose";

/**
 * One row per issued key; a user's key is never stored, only its SHA-256. A
 * bot's current key is also kept in clear (`botKey`): Zulip shows it to the
 * bot's owner and to administrators (GET /bots, register's realm_bots).
 */
export interface ApiKeyDoc {
  realmId: number;
  userId: number;
  keyHash: string;
  botKey?: string;
  createdAt: Date;
}

export const apiKeySchema = new Schema<ApiKeyDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    keyHash: { type: String, required: true },
    botKey: { type: String },
    createdAt: { type: Date, required: true },
  },
  { collection: "api_keys", versionKey: false },
);
// byKey (authentication): the key's hash finds its user
apiKeySchema.index({ realmId: 1, keyHash: 1 }, { unique: true });
// revokeAll (regeneration, deactivation) and botKeys: a user's keys
apiKeySchema.index({ realmId: 1, userId: 1 });
