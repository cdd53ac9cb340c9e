import { realmConfig, requireRealm, type Handler } from "@teamchat/shared";
import { profileFieldView } from "../profile-fields/profile-field-view";
import type { ProfileFieldRepository } from "../profile-fields/profile-field.repository";

/** GET /realm/profile_fields: any user of the organization, guests included (as in Zulip). */
export const listProfileFieldsHandler =
  (fields: ProfileFieldRepository): Handler<typeof realmConfig.listProfileFields> =>
  async (_params, ctx) => ({
    custom_fields: (await fields.inOrder(requireRealm(ctx).id)).map(profileFieldView),
  });
