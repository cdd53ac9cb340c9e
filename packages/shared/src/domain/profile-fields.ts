/** Custom profile field types (Zulip's CustomProfileField types), shared by realm-config (definitions) and identity (values). */
export const ProfileFieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;
