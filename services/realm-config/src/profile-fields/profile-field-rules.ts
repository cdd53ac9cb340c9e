import { badRequest } from "@teamchat/shared";
import { DEFAULT_EXTERNAL_ACCOUNTS } from "./external-accounts";
import { FieldType } from "./field-types";

/** Zulip's ProfileFieldData: choices of a list field, or an external account's subtype and URL pattern. */
export type FieldData = Record<string, Record<string, string> | string>;

/** Zulip's CustomProfileField.NAME_MAX_LENGTH, HINT_MAX_LENGTH, MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS. */
const NAME_MAX_LENGTH = 40;
const HINT_MAX_LENGTH = 80;
export const MAX_SUMMARY_FIELDS = 2;

export const summaryLimitReached = () =>
  badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);

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

/** Zulip's is_default_external_field: an external account of a ready-made subtype (label and hint from Zulip's table). */
export const isDefaultExternalField = (fieldType: number, data: FieldData): boolean =>
  fieldType === FieldType.EXTERNAL_ACCOUNT && String(data.subtype) in DEFAULT_EXTERNAL_ACCOUNTS;

/**
 * Zulip's validate_custom_profile_field, in its order: field data, then label
 * and hint (not for a ready-made external account), the type, and whether the
 * type may be shown in the profile summary.
 */
export function validateProfileField(field: {
  name: string;
  hint: string;
  fieldType: number;
  data: FieldData;
  displayInProfileSummary: boolean;
}): void {
  validateFieldData(field.fieldType, field.data);
  if (!isDefaultExternalField(field.fieldType, field.data)) {
    if (!field.name.trim()) throw badRequest("Label cannot be blank.");
    if ([...field.hint].length > HINT_MAX_LENGTH)
      throw badRequest(`hint is too long (limit: ${HINT_MAX_LENGTH} characters)`);
    if ([...field.name].length > NAME_MAX_LENGTH)
      throw badRequest(`name is too long (limit: ${NAME_MAX_LENGTH} characters)`);
  }
  if (!Object.values<number>(FieldType).includes(field.fieldType)) throw badRequest("Invalid field type.");
  if (
    field.displayInProfileSummary &&
    (field.fieldType === FieldType.LONG_TEXT || field.fieldType === FieldType.USER)
  ) {
    throw badRequest("Field type not supported for display in profile summary.");
  }
}

/** How field_data is stored: JSON text for list and external account fields, "" for the other types (Zulip's field_data). */
export const storedFieldData = (fieldType: number, data: FieldData): string =>
  fieldType === FieldType.SELECT || fieldType === FieldType.EXTERNAL_ACCOUNT ? JSON.stringify(data) : "";

/** Zulip's "Field id {id} not found.". */
export const fieldNotFound = (fieldId: number) => badRequest(`Field id ${fieldId} not found.`);
