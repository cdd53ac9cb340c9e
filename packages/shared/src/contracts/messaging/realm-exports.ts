import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { int } from "../common";

/** Zulip's RealmExport types: public data only, or everything the members consented to. */
export const ExportType = { PUBLIC: 1, FULL_WITH_CONSENT: 2 } as const;

/** Zulip's RealmExport (zulip.yaml components/schemas/RealmExport), times in seconds. */
export const realmExportSchema = z.strictObject({
  id: int,
  export_time: z.number(),
  acting_user_id: int,
  export_url: z.string().nullable(),
  deleted_timestamp: z.number().nullable(),
  failed_timestamp: z.number().nullable(),
  pending: z.boolean(),
  export_type: int,
});
export type RealmExportView = z.infer<typeof realmExportSchema>;

/** POST /export/realm (Zulip's export_realm): queues the export; administrators hear realm_export. */
export const exportRealm = defineContract({
  subject: "messaging.realm_exports.create",
  http: { method: "POST", path: "/export/realm", auth: "user" },
  params: z.object({
    export_type: z.union([z.literal(ExportType.PUBLIC), z.literal(ExportType.FULL_WITH_CONSENT)]).default(1),
  }),
  reply: z.strictObject({ id: int }),
});

/** GET /export/realm (Zulip's get_realm_exports). */
export const getRealmExports = defineContract({
  subject: "messaging.realm_exports.list",
  http: { method: "GET", path: "/export/realm", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ exports: z.array(realmExportSchema) }),
});

/** DELETE /export/realm/{export_id} (Zulip's delete_realm_export): the tarball goes, the row stays as deleted. */
export const deleteRealmExport = defineContract({
  subject: "messaging.realm_exports.delete",
  http: { method: "DELETE", path: "/export/realm/{export_id}", auth: "user" },
  params: z.object({ export_id: int }),
  reply: emptyReply,
});
