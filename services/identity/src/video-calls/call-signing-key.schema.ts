import { Schema } from "mongoose";

/**
 * The organization's key for signing BigBlueButton join links (what Zulip's
 * django.core.signing.Signer does with SECRET_KEY): made on first use, kept
 * so that links stay valid across instances and restarts.
 */
export interface CallSigningKeyDoc {
  realmId: number;
  /** base64url, 32 random bytes */
  key: string;
}

export const callSigningKeySchema = new Schema<CallSigningKeyDoc>(
  {
    realmId: { type: Number, required: true },
    key: { type: String, required: true },
  },
  { collection: "callsigningkeys", versionKey: false },
);
// CallSigningKeyRepository.keyOf: one key per organization
callSigningKeySchema.index({ realmId: 1 }, { unique: true });
