import { realmConfig, requireRealm, type Handler } from "@teamchat/shared";
import { profileFieldView } from "../profile-fields/profile-field-view";
import type { ProfileFieldList } from "../profile-fields/profile-field-list";

/** GET /realm/profile_fields: any user of the organization, guests included (as in Zulip). */
export const listProfileFieldsHandler =
  ({ fieldList }: { fieldList: ProfileFieldList }): Handler<typeof realmConfig.listProfileFields> =>
  async (_params, ctx) => ({
    custom_fields: (await fieldList.inOrder(requireRealm(ctx).id)).map(profileFieldView),
  });
