import { Schema } from "mongoose";
import type { identity } from "@teamchat/shared";

/**
 * Zulip's PushDevice (FL 406): one E2EE registration of a user's account on a
 * device, named by the client's push_account_id. What the client sent for the
 * bouncer is kept as sent, for the registration this server would forward.
 */
export interface PushDeviceDoc {
  realmId: number;
  userId: number;
  pushAccountId: number;
  tokenKind: (typeof identity.PUSH_TOKEN_KINDS)[number];
  /** the key the server encrypts notifications to this device with (base64) */
  pushPublicKey: string;
  /** which of the bouncer's keys encrypted the registration (base64) */
  bouncerPublicKey: string;
  /** the token, its kind and a timestamp, encrypted for the bouncer (base64) */
  encryptedPushRegistration: string;
  /** the bouncer's id of the device once it accepted the registration (Zulip's bouncer_device_id); null: pending */
  bouncerDeviceId: number | null;
  /** why the bouncer refused the registration (Zulip's PushDevice.error_code); null unless it did */
  errorCode: string | null;
  updatedAt: Date;
}

export const pushDeviceSchema = new Schema<PushDeviceDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    pushAccountId: { type: Number, required: true },
    tokenKind: { type: String, required: true },
    pushPublicKey: { type: String, required: true },
    bouncerPublicKey: { type: String, required: true },
    encryptedPushRegistration: { type: String, required: true },
    bouncerDeviceId: { type: Number, default: null },
    errorCode: { type: String, default: null },
    updatedAt: { type: Date, required: true },
  },
  { collection: "pushdevices", versionKey: false },
);
// PushDeviceRepository.ofUser (the realmId+userId prefix) and register's upsert; one registration per user
// and push_account_id, as Zulip's unique_push_device_user_push_account_id
pushDeviceSchema.index({ realmId: 1, userId: 1, pushAccountId: 1 }, { unique: true });
