import { Schema } from "mongoose";

/** Zulip's CustomProfileField. */
export interface ProfileFieldDoc {
  realmId: number;
  fieldId: number;
  name: string;
  hint: string;
  /** 1 short text .. 8 pronouns */
  fieldType: number;
  /** JSON text for list (3) and external account (7) fields, "" otherwise, as Zulip stores it */
  fieldData: string;
  order: number;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

export const profileFieldSchema = new Schema<ProfileFieldDoc>(
  {
    realmId: { type: Number, required: true },
    fieldId: { type: Number, required: true },
    name: { type: String, required: true },
    hint: { type: String, default: "" },
    fieldType: { type: Number, required: true },
    fieldData: { type: String, default: "" },
    order: { type: Number, required: true },
    displayInProfileSummary: { type: Boolean, default: false },
    required: { type: Boolean, default: false },
    editableByUser: { type: Boolean, default: true },
  },
  { collection: "custom_profile_fields", versionKey: false },
);
// insert: one field per id in an organization
profileFieldSchema.index({ realmId: 1, fieldId: 1 }, { unique: true });
// insert: Zulip's unique_together (realm, name), "A field with that label already exists."
profileFieldSchema.index({ realmId: 1, name: 1 }, { unique: true });
// inOrder (GET /realm/profile_fields, register, the event after a change); countInSummary uses its realmId prefix
profileFieldSchema.index({ realmId: 1, order: 1 });
