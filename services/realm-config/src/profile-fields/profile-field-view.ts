import type { realmConfig } from "@teamchat/shared";
import type { ProfileFieldDoc } from "./profile-field.schema";

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
