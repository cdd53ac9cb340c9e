import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { profileFieldSchema, type ProfileFieldDoc } from "./profile-field.schema";

export type NewProfileField = Omit<ProfileFieldDoc, "realmId" | "fieldId" | "order">;

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

  countInSummary(realmId: number): Promise<number> {
    return this.count(realmId, { displayInProfileSummary: true });
  }

  /** New fields go last, as Zulip sets order = id; a taken name fails with the unique index's error. */
  async insert(realmId: number, field: NewProfileField): Promise<ProfileFieldDoc> {
    const fieldId = await this.ids.next("custom_profile_field");
    return this.insertOne({ ...field, realmId, fieldId, order: fieldId });
  }
}
