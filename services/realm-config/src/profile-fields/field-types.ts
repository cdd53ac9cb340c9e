/** Zulip's CustomProfileField types: id, keyword and display name (custom_profile_field_types in register). */
export const FieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

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
