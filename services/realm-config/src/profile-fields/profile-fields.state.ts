import { provideState, realmConfig, requireRealm } from "@teamchat/shared";
import { CUSTOM_PROFILE_FIELD_TYPES } from "./field-types";
import { profileFieldView } from "./profile-field-view";
import type { ProfileFieldList } from "./profile-field-list";

/** register's custom_profile_fields (as GET /realm/profile_fields lists them) and the field types. */
export const profileFieldsState = ({ fieldList }: { fieldList: ProfileFieldList }) =>
  provideState(realmConfig.customProfileFieldsPart, async (_params, ctx) => ({
    custom_profile_fields: (await fieldList.inOrder(requireRealm(ctx).id)).map(profileFieldView),
    custom_profile_field_types: CUSTOM_PROFILE_FIELD_TYPES,
  }));
