import { badRequest, isAdmin, isDuplicateKey, mustBeAdmin, realmConfigEvents, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { DEFAULT_EXTERNAL_ACCOUNTS } from "../profile-fields/external-accounts";
import { FieldType } from "../profile-fields/field-types";
import { profileFieldView } from "../profile-fields/profile-field-view";
import type { ProfileFieldRepository } from "../profile-fields/profile-field.repository";

type FieldData = Record<string, Record<string, string> | string>;

/** Zulip's CustomProfileField.NAME_MAX_LENGTH, HINT_MAX_LENGTH, MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS. */
const NAME_MAX_LENGTH = 40;
const HINT_MAX_LENGTH = 80;
const MAX_SUMMARY_FIELDS = 2;

/** Zulip's check_required_string. */
function requiredString(varName: string, value: unknown): string {
  if (typeof value !== "string") throw badRequest(`${varName} is not a string`);
  if (!value.trim()) throw badRequest(`${varName} cannot be blank.`);
  return value;
}

/** Zulip's check_dict_only: required keys, optional keys, nothing else; each value checked under `var["key"]`. */
function checkDictOnly(
  varName: string,
  value: unknown,
  required: Record<string, (name: string, v: unknown) => unknown>,
  optional: Record<string, (name: string, v: unknown) => unknown> = {},
): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw badRequest(`${varName} is not a dict`);
  const dict = value as Record<string, unknown>;
  for (const [key, check] of Object.entries(required)) {
    if (!(key in dict)) throw badRequest(`${key} key is missing from ${varName}`);
    check(`${varName}["${key}"]`, dict[key]);
  }
  for (const [key, check] of Object.entries(optional)) {
    if (key in dict) check(`${varName}["${key}"]`, dict[key]);
  }
  const unexpected = Object.keys(dict).filter((k) => !(k in required) && !(k in optional));
  if (unexpected.length) throw badRequest(`Unexpected arguments: ${unexpected.join(", ")}`);
}

/** Zulip's check_external_account_url_pattern: one %(username)s, and a URL once it is filled in. */
function urlPattern(varName: string, value: unknown): void {
  if (typeof value !== "string") throw badRequest(`${varName} is not a string`);
  if (value.split("%(username)s").length !== 2) throw badRequest("URL pattern must contain '%(username)s'.");
  let url: URL | undefined;
  try {
    url = new URL(value.replace("%(username)s", "username"));
  } catch {
    url = undefined;
  }
  if (!url || !["http:", "https:", "ftp:", "ftps:"].includes(url.protocol)) throw badRequest(`${varName} is not a URL`);
}

/** Zulip's validate_custom_field_data: choices of a list field, subtype of an external account. */
function validateFieldData(fieldType: number, data: FieldData): void {
  if (fieldType === FieldType.SELECT) {
    if (Object.keys(data).length < 1) throw badRequest("Field must have at least one choice.");
    const texts = new Set<string>();
    for (const [key, choice] of Object.entries(data)) {
      if (!key.trim()) throw badRequest("'value' cannot be blank.");
      checkDictOnly("field_data", choice, { text: requiredString, order: requiredString });
      texts.add((choice as Record<string, string>).text!);
    }
    if (texts.size !== Object.keys(data).length) throw badRequest("Field must not have duplicate choices.");
  } else if (fieldType === FieldType.EXTERNAL_ACCOUNT) {
    checkDictOnly("field_data", data, { subtype: requiredString }, { url_pattern: urlPattern });
    if (!(String(data.subtype) in DEFAULT_EXTERNAL_ACCOUNTS)) {
      if (data.subtype !== "custom") throw badRequest("Invalid external account type");
      if (!("url_pattern" in data)) throw badRequest("Custom external account must define URL pattern");
    }
  }
}

/** POST /realm/profile_fields, in the order of Zulip's create_realm_custom_profile_field. */
export const createProfileFieldHandler =
  (
    fields: ProfileFieldRepository,
    events: EventPublisher<"realm-config">,
  ): Handler<typeof realmConfig.createProfileField> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    if (p.display_in_profile_summary && (await fields.countInSummary(realm.id)) >= MAX_SUMMARY_FIELDS) {
      throw badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
    }
    const data = p.field_data ?? {};
    validateFieldData(p.field_type, data);
    // A ready-made external account takes its label and hint from Zulip's table.
    const preset =
      p.field_type === FieldType.EXTERNAL_ACCOUNT ? DEFAULT_EXTERNAL_ACCOUNTS[String(data.subtype)] : undefined;
    if (!preset) {
      if (!p.name) throw badRequest("Label cannot be blank.");
      if ([...p.hint].length > HINT_MAX_LENGTH)
        throw badRequest(`hint is too long (limit: ${HINT_MAX_LENGTH} characters)`);
      if ([...p.name].length > NAME_MAX_LENGTH)
        throw badRequest(`name is too long (limit: ${NAME_MAX_LENGTH} characters)`);
    }
    if (!Object.values<number>(FieldType).includes(p.field_type)) throw badRequest("Invalid field type.");
    if (p.display_in_profile_summary && (p.field_type === FieldType.LONG_TEXT || p.field_type === FieldType.USER)) {
      throw badRequest("Field type not supported for display in profile summary.");
    }

    let fieldData = "";
    if (preset) fieldData = JSON.stringify({ subtype: data.subtype });
    else if (p.field_type === FieldType.SELECT || p.field_type === FieldType.EXTERNAL_ACCOUNT)
      fieldData = JSON.stringify(data);
    let created;
    try {
      created = await fields.insert(realm.id, {
        name: preset?.name ?? p.name,
        hint: preset?.hint ?? p.hint,
        fieldType: p.field_type,
        fieldData,
        displayInProfileSummary: p.display_in_profile_summary,
        required: p.required,
        editableByUser: p.editable_by_user,
      });
    } catch (err) {
      if (isDuplicateKey(err)) throw badRequest("A field with that label already exists.");
      throw err;
    }
    const all = await fields.inOrder(realm.id);
    events.publish(
      realmConfigEvents.customProfileFields,
      {
        realmId: realm.id,
        userIds: "all",
        event: { type: "custom_profile_fields", fields: all.map(profileFieldView) },
      },
      ctx.requestId,
    );
    return { id: created.fieldId };
  };
