import { Schema } from "mongoose";
import type { Settings } from "../users/settings";

/** An organization's defaults for new users' settings (Zulip's RealmUserDefault): only what differs from Zulip's. */
export interface RealmUserDefaultDoc {
  realmId: number;
  settings: Partial<Settings>;
}

export const realmUserDefaultSchema = new Schema<RealmUserDefaultDoc>(
  {
    realmId: { type: Number, required: true },
    settings: { type: Schema.Types.Mixed, default: {} },
  },
  { collection: "realm_user_defaults", versionKey: false, minimize: false },
);
// byRealm, change: one document per organization
realmUserDefaultSchema.index({ realmId: 1 }, { unique: true });
