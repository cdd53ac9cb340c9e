import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { profileFieldSchema, type ProfileFieldDoc } from "./profile-field.schema";

export type NewProfileField = Omit<ProfileFieldDoc, "realmId" | "fieldId" | "order">;

/** What PATCH /realm/profile_fields/{field_id} may change. */
export type ProfileFieldChanges = Partial<
  Pick<ProfileFieldDoc, "name" | "hint" | "fieldData" | "displayInProfileSummary" | "required" | "editableByUser">
>;

export class ProfileFieldRepository extends TenantRepository<ProfileFieldDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ProfileFieldDoc>("CustomProfileField", profileFieldSchema));
  }

  /** The organization's fields in display order (Zulip's custom_profile_fields_for_realm). */
  inOrder(realmId: number): Promise<ProfileFieldDoc[]> {
    return this.find(realmId, {}, { sort: { order: 1, fieldId: 1 } });
  }

  byId(realmId: number, fieldId: number): Promise<ProfileFieldDoc | null> {
    return this.findOne(realmId, { fieldId });
  }

  /** Fields shown in the profile summary, but for `exceptFieldId` (the one being changed). */
  countInSummary(realmId: number, exceptFieldId?: number): Promise<number> {
    return this.count(realmId, {
      displayInProfileSummary: true,
      ...(exceptFieldId === undefined ? {} : { fieldId: { $ne: exceptFieldId } }),
    });
  }

  /** A taken name fails with the unique index's error. */
  async change(realmId: number, fieldId: number, changes: ProfileFieldChanges): Promise<void> {
    await this.updateOne(realmId, { fieldId }, { $set: changes });
  }

  /** True when there was such a field. */
  async remove(realmId: number, fieldId: number): Promise<boolean> {
    return (await this.deleteMany(realmId, { fieldId })) > 0;
  }

  async setOrder(realmId: number, orderById: ReadonlyMap<number, number>): Promise<void> {
    await Promise.all(
      [...orderById].map(([fieldId, order]) => this.updateOne(realmId, { fieldId }, { $set: { order } })),
    );
  }

  /** New fields go last, as Zulip sets order = id; a taken name fails with the unique index's error. */
  async insert(realmId: number, field: NewProfileField): Promise<ProfileFieldDoc> {
    const fieldId = await this.ids.next("custom_profile_field");
    return this.insertOne({ ...field, realmId, fieldId, order: fieldId });
  }
}
