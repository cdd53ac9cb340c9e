import { z } from "zod";
import { defineContract } from "../../contract";
import { exportRowSchema } from "../common";

/**
 * Internal (the realm export): the organization and its configuration as
 * Zulip's tables (zerver_realm, zerver_customprofilefield, zerver_realmemoji,
 * zerver_realmfilter).
 */
export const exportRealmConfig = defineContract({
  subject: "realm-config.export.records",
  params: z.object({}),
  reply: z.strictObject({
    zerver_realm: z.array(exportRowSchema),
    zerver_customprofilefield: z.array(exportRowSchema),
    zerver_realmemoji: z.array(exportRowSchema),
    zerver_realmfilter: z.array(exportRowSchema),
  }),
});
