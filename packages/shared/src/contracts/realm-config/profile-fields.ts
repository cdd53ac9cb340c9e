import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList } from "../common";

/** Zulip's CustomProfileField (zulip.yaml components/schemas/CustomProfileField). */
export const customProfileFieldSchema = z.strictObject({
  id: int,
  /** 1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 person picker, 7 external account, 8 pronouns */
  type: int.min(1).max(8),
  order: int,
  name: z.string(),
  hint: z.string(),
  /** JSON text, as Zulip sends it ("" when the type has none) */
  field_data: z.string(),
  /** present (true) only on the fields shown in the profile summary, as in Zulip's as_dict() */
  display_in_profile_summary: z.literal(true).optional(),
  required: z.boolean(),
  editable_by_user: z.boolean(),
});

export type CustomProfileField = z.infer<typeof customProfileFieldSchema>;

/** GET /realm/profile_fields; identity calls it over the bus to validate and render profile_data. */
export const listProfileFields = defineContract({
  subject: "realm-config.profile_fields.list",
  http: { method: "GET", path: "/realm/profile_fields", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ custom_fields: z.array(customProfileFieldSchema) }),
});

/** Zulip's ProfileFieldData: choices of a list field, or an external account's subtype/url_pattern. */
export const profileFieldDataSchema = z.record(z.string(), z.union([z.record(z.string(), z.string()), z.string()]));

/** POST /realm/profile_fields (Zulip's create_realm_custom_profile_field). */
export const createProfileField = defineContract({
  subject: "realm-config.profile_fields.create",
  http: { method: "POST", path: "/realm/profile_fields", auth: "user" },
  params: z.object({
    name: z
      .string()
      .default("")
      .transform((s) => s.trim()),
    hint: z.string().default(""),
    field_type: int,
    field_data: profileFieldDataSchema.nullable().default(null),
    display_in_profile_summary: z.boolean().default(false),
    required: z.boolean().default(false),
    editable_by_user: z.boolean().default(true),
  }),
  reply: z.strictObject({ id: int }),
});

/** PATCH /realm/profile_fields (Zulip's reorder_realm_custom_profile_fields): every field's id, in the new order. */
export const reorderProfileFields = defineContract({
  subject: "realm-config.profile_fields.reorder",
  http: { method: "PATCH", path: "/realm/profile_fields", auth: "user" },
  params: z.object({ order: intList }),
  reply: z.strictObject({}),
});

/** PATCH /realm/profile_fields/{field_id} (Zulip's update_realm_custom_profile_field): each parameter sent is changed. */
export const updateProfileField = defineContract({
  subject: "realm-config.profile_fields.update",
  http: { method: "PATCH", path: "/realm/profile_fields/{field_id}", auth: "user" },
  params: z.object({
    field_id: int,
    name: z
      .string()
      .transform((s) => s.trim())
      .optional(),
    hint: z.string().optional(),
    field_data: profileFieldDataSchema.optional(),
    display_in_profile_summary: z.boolean().optional(),
    required: z.boolean().optional(),
    editable_by_user: z.boolean().optional(),
  }),
  reply: z.strictObject({}),
});

/** DELETE /realm/profile_fields/{field_id} (Zulip's delete_realm_custom_profile_field). */
export const deleteProfileField = defineContract({
  subject: "realm-config.profile_fields.delete",
  http: { method: "DELETE", path: "/realm/profile_fields/{field_id}", auth: "user" },
  params: z.object({ field_id: int }),
  reply: z.strictObject({}),
});
