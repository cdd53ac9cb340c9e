import { isAdmin, mustBeAdmin, realmConfigEvents, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { fieldNotFound } from "../profile-fields/profile-field-rules";
import { publishProfileFields } from "../profile-fields/profile-fields-event";
import type { ProfileFieldRepository } from "../profile-fields/profile-field.repository";

/**
 * DELETE /realm/profile_fields/{field_id} (Zulip's do_remove_realm_custom_profile_field):
 * the field goes, and with it every user's value for it (identity drops them on
 * profileFieldValuesDropped); everyone gets the list without it.
 */
export const deleteProfileFieldHandler =
  ({
    fields,
    events,
  }: {
    fields: ProfileFieldRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.deleteProfileField> =>
  async ({ field_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    if (!(await fields.remove(realm.id, field_id))) throw fieldNotFound(field_id);
    events.publish(
      realmConfigEvents.profileFieldValuesDropped,
      { realmId: realm.id, fieldId: field_id, choices: null },
      ctx.requestId,
    );
    await publishProfileFields({ fields, events }, realm.id, ctx.requestId);
    ctx.log.info({ realmId: realm.id, fieldId: field_id }, "custom profile field deleted");
    return {};
  };
