import { badRequest, isAdmin, mustBeAdmin, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { publishProfileFields } from "../profile-fields/profile-fields-event";
import type { ProfileFieldRepository } from "../profile-fields/profile-field.repository";

/**
 * PATCH /realm/profile_fields (Zulip's try_reorder_realm_custom_profile_fields):
 * each field's `order` becomes its position in the list, which must name every
 * field of the organization; as in Zulip, ids of no field are ignored and a
 * repeated id takes its last position.
 */
export const reorderProfileFieldsHandler =
  ({
    fields,
    events,
  }: {
    fields: ProfileFieldRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.reorderProfileFields> =>
  async ({ order }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const position = new Map(order.map((fieldId, index) => [fieldId, index]));
    const all = await fields.inOrder(realm.id);
    if (all.some((f) => !position.has(f.fieldId))) throw badRequest("Invalid order mapping.");
    await fields.setOrder(realm.id, new Map(all.map((f) => [f.fieldId, position.get(f.fieldId)!])));
    await publishProfileFields({ fields, events }, realm.id, ctx.requestId);
    return {};
  };
