import { z } from "zod";

/** Schemas several contracts share. */

export const int = z.number().int();

export const intList = z.array(int);

/** Zulip's group-setting value: a group id, or an anonymous group of users and subgroups. */
export const groupSettingValueSchema = z.union([
  z.number().int(),
  z.object({ direct_members: z.array(z.number().int()), direct_subgroups: z.array(z.number().int()) }),
]);

export type GroupSettingValue = z.infer<typeof groupSettingValueSchema>;

/**
 * Zulip's GroupSettingValueUpdate (PATCH operations): the new value, and the
 * value the client believes is current (refused when it is not, against races).
 */
export const groupSettingValueUpdateSchema = z.object({
  new: groupSettingValueSchema,
  old: groupSettingValueSchema.optional(),
});

export type GroupSettingValueUpdate = z.infer<typeof groupSettingValueUpdateSchema>;

/** A table row of Zulip's realm export (zerver/lib/export.py): its columns, ids as Zulip names them. */
export const exportRowSchema = z.record(z.string(), z.unknown());
export type ExportRow = z.infer<typeof exportRowSchema>;
