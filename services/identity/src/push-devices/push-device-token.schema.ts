import { Schema } from "mongoose";
import type { identity } from "@teamchat/shared";

/** Zulip's PushDeviceToken: a legacy (not end-to-end encrypted) registration of an APNs or FCM token. */
export interface PushDeviceTokenDoc {
  realmId: number;
  userId: number;
  kind: (typeof identity.PUSH_TOKEN_KINDS)[number];
  token: string;
  /** the iOS app's bundle id; null for FCM */
  iosAppId: string | null;
  lastUpdated: Date;
}

export const pushDeviceTokenSchema = new Schema<PushDeviceTokenDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    kind: { type: String, required: true },
    token: { type: String, required: true },
    iosAppId: { type: String, default: null },
    lastUpdated: { type: Date, required: true },
  },
  { collection: "pushdevicetokens", versionKey: false },
);
// PushDeviceTokenRepository.ofUser and byToken (the realmId+userId prefix); one row per user, token and
// kind, as Zulip's unique (user, kind, token)
pushDeviceTokenSchema.index({ realmId: 1, userId: 1, token: 1, kind: 1 }, { unique: true });
