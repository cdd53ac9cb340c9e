import { ProfileFieldType } from "@teamchat/shared";

/** Zulip's CustomProfileField types: id (shared contract), keyword and display name (custom_profile_field_types in register). */
export const FieldType = ProfileFieldType;

type FieldTypeKey = keyof typeof FieldType;

const FIELD_TYPE_NAMES: Record<FieldTypeKey, string> = {
  SHORT_TEXT: "Text (short)",
  LONG_TEXT: "Text (long)",
  SELECT: "List of options",
  DATE: "Date",
  URL: "Link",
  USER: "Users",
  EXTERNAL_ACCOUNT: "External account",
  PRONOUNS: "Pronouns",
};

/** register's custom_profile_field_types: each type by keyword, with its id and display name. */
export const CUSTOM_PROFILE_FIELD_TYPES = Object.fromEntries(
  Object.entries(FieldType).map(([key, id]) => [key, { id, name: FIELD_TYPE_NAMES[key as FieldTypeKey] }]),
) as Record<FieldTypeKey, { id: number; name: string }>;
