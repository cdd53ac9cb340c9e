import { z } from "zod";
import { defineContract } from "../../contract";
import { exportRowSchema, int } from "../common";

/** GET /export/realm/consents (Zulip's get_users_export_consents): active human users only. */
export const getExportConsents = defineContract({
  subject: "identity.export.consents",
  http: { method: "GET", path: "/export/realm/consents", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ export_consents: z.array(z.strictObject({ user_id: int, consented: z.boolean() })) }),
});

/**
 * Internal (the realm export): one page of the organization's users, by id,
 * as Zulip's zerver_userprofile rows, with their custom profile field values
 * (zerver_customprofilefieldvalue); the first page also has the system bots
 * (zerver_userprofile_crossrealm, as Zulip's are). Pages keep each reply under NATS' message limit.
 */
export const exportUsers = defineContract({
  subject: "identity.export.users",
  params: z.object({ after_user_id: int, limit: int.min(1).max(500) }),
  reply: z.strictObject({
    zerver_userprofile: z.array(exportRowSchema),
    zerver_customprofilefieldvalue: z.array(exportRowSchema),
    zerver_userprofile_crossrealm: z.array(exportRowSchema),
  }),
});

/** Internal (the realm export): the user-created groups and their memberships, as Zulip's tables. */
export const exportUserGroups = defineContract({
  subject: "identity.export.user_groups",
  params: z.object({}),
  reply: z.strictObject({
    zerver_usergroup: z.array(exportRowSchema),
    zerver_namedusergroup: z.array(exportRowSchema),
    zerver_usergroupmembership: z.array(exportRowSchema),
    zerver_groupgroupmembership: z.array(exportRowSchema),
  }),
});
