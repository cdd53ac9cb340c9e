import { ProfileFieldType } from "@teamchat/shared";

/** Zulip's CustomProfileField types: id (shared contract), keyword and display name (custom_profile_field_types in register). */
export const FieldType = ProfileFieldType;

export const FIELD_TYPE_NAMES: Record<keyof typeof FieldType, string> = {
  SHORT_TEXT: "Text (short)",
  LONG_TEXT: "Text (long)",
  SELECT: "List of options",
  DATE: "Date",
  URL: "Link",
  USER: "Users",
  EXTERNAL_ACCOUNT: "External account",
  PRONOUNS: "Pronouns",
};
