import { isAdmin, isDuplicateKey, mustBeAdmin, requireUser, badRequest } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { DEFAULT_EXTERNAL_ACCOUNTS } from "../profile-fields/external-accounts";
import {
  MAX_SUMMARY_FIELDS,
  isDefaultExternalField,
  storedFieldData,
  summaryLimitReached,
  validateProfileField,
} from "../profile-fields/profile-field-rules";
import { publishProfileFields } from "../profile-fields/profile-fields-event";
import type { ProfileFieldRepository } from "../profile-fields/profile-field.repository";

/** POST /realm/profile_fields, in the order of Zulip's create_realm_custom_profile_field. */
export const createProfileFieldHandler =
  ({
    fields,
    events,
  }: {
    fields: ProfileFieldRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.createProfileField> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    if (p.display_in_profile_summary && (await fields.countInSummary(realm.id)) >= MAX_SUMMARY_FIELDS) {
      throw summaryLimitReached();
    }
    const data = p.field_data ?? {};
    validateProfileField({
      name: p.name,
      hint: p.hint,
      fieldType: p.field_type,
      data,
      displayInProfileSummary: p.display_in_profile_summary,
    });
    // A ready-made external account takes its label and hint from Zulip's table and keeps only its subtype.
    const preset = isDefaultExternalField(p.field_type, data) ? DEFAULT_EXTERNAL_ACCOUNTS[String(data.subtype)] : null;
    let created;
    try {
      created = await fields.insert(realm.id, {
        name: preset?.name ?? p.name,
        hint: preset?.hint ?? p.hint,
        fieldType: p.field_type,
        fieldData: preset ? JSON.stringify({ subtype: data.subtype }) : storedFieldData(p.field_type, data),
        displayInProfileSummary: p.display_in_profile_summary,
        required: p.required,
        editableByUser: p.editable_by_user,
      });
    } catch (err) {
      if (isDuplicateKey(err)) throw badRequest("A field with that label already exists.");
      throw err;
    }
    await publishProfileFields({ fields, events }, realm.id, ctx.requestId);
    return { id: created.fieldId };
  };
