import { badRequest, isAdmin, isDuplicateKey, mustBeAdmin, realmConfigEvents, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { FieldType } from "../profile-fields/field-types";
import {
  MAX_SUMMARY_FIELDS,
  fieldNotFound,
  isDefaultExternalField,
  storedFieldData,
  summaryLimitReached,
  validateProfileField,
  type FieldData,
} from "../profile-fields/profile-field-rules";
import { publishProfileFields } from "../profile-fields/profile-fields-event";
import type { ProfileFieldChanges, ProfileFieldRepository } from "../profile-fields/profile-field.repository";

const sameData = (a: FieldData, b: FieldData) => JSON.stringify(a) === JSON.stringify(b);

/**
 * PATCH /realm/profile_fields/{field_id} (Zulip's update_realm_custom_profile_field):
 * each parameter sent is changed, and the field as it would be afterwards is
 * checked with the rules of creation. The type never changes; field_data
 * only matters for list and external account fields. A ready-made external
 * account may only change its summary, required and editable flags. Choices
 * an update removes take users' values naming them along (identity drops them).
 */
export const updateProfileFieldHandler =
  ({
    fields,
    events,
  }: {
    fields: ProfileFieldRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.updateProfileField> =>
  async ({ field_id, name, hint, field_data, display_in_profile_summary, required, editable_by_user }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const field = await fields.byId(realm.id, field_id);
    if (!field) throw fieldNotFound(field_id);
    if (display_in_profile_summary && (await fields.countInSummary(realm.id, field_id)) >= MAX_SUMMARY_FIELDS) {
      throw summaryLimitReached();
    }
    const currentData: FieldData = field.fieldData ? (JSON.parse(field.fieldData) as FieldData) : {};
    if (
      isDefaultExternalField(field.fieldType, currentData) &&
      ((name !== undefined && name !== field.name) ||
        (hint !== undefined && hint !== field.hint) ||
        (field_data !== undefined && !sameData(field_data, currentData)))
    ) {
      throw badRequest("Default custom field cannot be updated.");
    }
    validateProfileField({
      name: name ?? field.name,
      hint: hint ?? field.hint,
      fieldType: field.fieldType,
      data: field_data ?? currentData,
      displayInProfileSummary: display_in_profile_summary ?? field.displayInProfileSummary,
    });

    const changes: ProfileFieldChanges = {};
    if (name !== undefined) changes.name = name;
    if (hint !== undefined) changes.hint = hint;
    if (display_in_profile_summary !== undefined) changes.displayInProfileSummary = display_in_profile_summary;
    if (required !== undefined) changes.required = required;
    if (editable_by_user !== undefined) changes.editableByUser = editable_by_user;
    const hasData = field.fieldType === FieldType.SELECT || field.fieldType === FieldType.EXTERNAL_ACCOUNT;
    if (hasData && field_data !== undefined) changes.fieldData = storedFieldData(field.fieldType, field_data);
    try {
      await fields.change(realm.id, field_id, changes);
    } catch (err) {
      if (isDuplicateKey(err)) throw badRequest("A field with that label already exists.");
      throw err;
    }
    const removedChoices =
      field.fieldType === FieldType.SELECT && field_data
        ? Object.keys(currentData).filter((choice) => !(choice in field_data))
        : [];
    if (removedChoices.length) {
      events.publish(
        realmConfigEvents.profileFieldValuesDropped,
        { realmId: realm.id, fieldId: field_id, choices: removedChoices },
        ctx.requestId,
      );
    }
    await publishProfileFields({ fields, events }, realm.id, ctx.requestId);
    return {};
  };
