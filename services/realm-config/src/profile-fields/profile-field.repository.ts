import type { Connection } from "mongoose";
import { IdAllocator, RealmRepository, type realmConfig } from "@teamchat/shared";
import { profileFieldSchema, type ProfileFieldDoc } from "./profile-field.schema";

export type NewProfileField = Omit<ProfileFieldDoc, "fieldId" | "order">;

export class ProfileFieldRepository extends RealmRepository<ProfileFieldDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ProfileFieldDoc>("CustomProfileField", profileFieldSchema));
  }

  inOrder(realmId: number): Promise<ProfileFieldDoc[]> {
    return this.model.find({ realmId }).sort({ order: 1, fieldId: 1 }).lean<ProfileFieldDoc[]>().exec();
  }

  countInSummary(realmId: number): Promise<number> {
    return this.count({ realmId, displayInProfileSummary: true });
  }

  /** New fields go last, as Zulip sets order = id; a taken name fails with the unique index's error. */
  async insert(field: NewProfileField): Promise<ProfileFieldDoc> {
    const fieldId = await this.ids.next("custom_profile_field");
    const doc: ProfileFieldDoc = { ...field, fieldId, order: fieldId };
    await this.model.create(doc);
    return doc;
  }
}

/** Zulip's CustomProfileField.as_dict(). */
export const profileFieldView = (f: ProfileFieldDoc): realmConfig.CustomProfileField => ({
  id: f.fieldId,
  name: f.name,
  type: f.fieldType,
  hint: f.hint,
  field_data: f.fieldData,
  order: f.order,
  ...(f.displayInProfileSummary ? { display_in_profile_summary: true } : {}),
  required: f.required,
  editable_by_user: f.editableByUser,
});
