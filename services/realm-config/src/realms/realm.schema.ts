import { Schema } from "mongoose";

export interface RealmDoc {
  realmId: number;
  /** "" for the root organization (served on the bare host) */
  subdomain: string;
  name: string;
  description: string;
  dateCreated: Date;
  /** organization settings keyed by Zulip's names (realm_* without the prefix) */
  settings: Record<string, unknown>;
}

export const realmSchema = new Schema<RealmDoc>(
  {
    realmId: { type: Number, required: true },
    subdomain: { type: String, default: "" },
    name: { type: String, required: true },
    description: { type: String, default: "" },
    dateCreated: { type: Date, required: true },
    settings: { type: Schema.Types.Mixed, default: {} },
  },
  { collection: "realms", versionKey: false, minimize: false },
);
// bySubdomain: every request, as the gateway resolves Host → subdomain → realm; ensure: one realm per subdomain
realmSchema.index({ subdomain: 1 }, { unique: true });
// byId: settings, server settings and register state of a resolved realm
realmSchema.index({ realmId: 1 }, { unique: true });
