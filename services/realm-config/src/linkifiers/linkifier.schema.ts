import { Schema } from "mongoose";

/** Zulip's RealmFilter. */
export interface LinkifierDoc {
  realmId: number;
  linkifierId: number;
  pattern: string;
  urlTemplate: string;
  /** Processing position: one past the largest at creation, the position in the list after PATCH /realm/linkifiers. */
  order: number;
}

export const linkifierSchema = new Schema<LinkifierDoc>(
  {
    realmId: { type: Number, required: true },
    linkifierId: { type: Number, required: true },
    pattern: { type: String, required: true },
    urlTemplate: { type: String, required: true },
    order: { type: Number, required: true },
  },
  { collection: "linkifiers", versionKey: false },
);
// byId, update, remove, setOrder; insert: one linkifier per id
linkifierSchema.index({ realmId: 1, linkifierId: 1 }, { unique: true });
// inOrder (GET /realm/linkifiers, register's realm_linkifiers, messaging's cache)
linkifierSchema.index({ realmId: 1, order: 1, linkifierId: 1 });
// insert, update: Zulip's unique_together (realm, pattern)
linkifierSchema.index({ realmId: 1, pattern: 1 }, { unique: true });
