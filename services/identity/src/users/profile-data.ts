import { badRequest, realmConfig, ProfileFieldType, renderMarkdown } from "@teamchat/shared";
import type { ProfileValue } from "./user.schema";

type Field = realmConfig.CustomProfileField;
export type ProfileUpdate = { id: number; value: string | number[] | null };

const FieldType = ProfileFieldType;
/** Zulip's check_short_string / check_long_string limits. */
const MAX_LENGTH: Record<number, number> = {
  [FieldType.SHORT_TEXT]: 50,
  [FieldType.LONG_TEXT]: 500,
  [FieldType.PRONOUNS]: 50,
  [FieldType.EXTERNAL_ACCOUNT]: 50,
};

/**
 * Checks one value against its field as Zulip's validate_user_custom_profile_field
 * does, and returns it as stored (user lists as JSON text, Markdown types rendered).
 */
async function toStored(field: Field, value: string | number[], userExists: (id: number) => Promise<boolean>) {
  const name = field.name;
  if (field.type === FieldType.USER) {
    if (!Array.isArray(value)) throw badRequest(`${name} is not a list`);
    for (const id of value) if (!(await userExists(id))) throw badRequest(`Invalid user ID: ${id}`);
    return { value: JSON.stringify(value) };
  }
  if (typeof value !== "string") throw badRequest(`${name} is not a string`);
  const max = MAX_LENGTH[field.type];
  if (max !== undefined && value.length > max) throw badRequest(`${name} is too long (limit: ${max} characters)`);
  if (field.type === FieldType.SELECT) {
    const choices = field.field_data ? (JSON.parse(field.field_data) as Record<string, unknown>) : {};
    if (!Object.hasOwn(choices, value)) throw badRequest(`'${value}' is not a valid choice for '${name}'.`);
  }
  if (field.type === FieldType.DATE && (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))) {
    throw badRequest(`${name} is not a date`);
  }
  if (field.type === FieldType.URL && !/^https?:\/\/[^\s/]+/i.test(value)) throw badRequest(`${name} is not a URL`);
  const renderable = field.type === FieldType.SHORT_TEXT || field.type === FieldType.LONG_TEXT;
  return renderable ? { value, rendered_value: renderMarkdown(value) } : { value };
}

/**
 * Applies updates to a user's profile data: an empty or null value clears the
 * field, others are validated. Unknown field ids fail as in Zulip.
 */
export async function applyProfileUpdates(
  current: Record<string, ProfileValue>,
  updates: ProfileUpdate[],
  fields: Field[],
  userExists: (id: number) => Promise<boolean>,
): Promise<Record<string, ProfileValue>> {
  const byId = new Map(fields.map((f) => [f.id, f]));
  const next = { ...current };
  for (const { id, value } of updates) {
    const field = byId.get(id);
    if (!field) throw badRequest(`Field id ${id} not found.`);
    if (value === null || value.length === 0) delete next[id];
    else next[id] = await toStored(field, value, userExists);
  }
  return next;
}
