import { z } from "zod";
import { roleSchema } from "../../actor";
import { defineContract } from "../../contract";
import { int, intList } from "../common";

/**
 * Internal (the management CLI's import-realm): users of an imported
 * organization, in order, with their settings; they log in after a password
 * reset, as Zulip's imported users do. Bot owners are new ids of users imported before.
 */
export const importUsers = defineContract({
  subject: "identity.import.users",
  params: z.object({
    users: z.array(
      z.object({
        delivery_email: z.string(),
        full_name: z.string(),
        role: roleSchema,
        is_active: z.boolean(),
        is_bot: z.boolean(),
        bot_type: int.nullable(),
        bot_owner: int.nullable(),
        date_joined: z.number(),
        timezone: z.string(),
        can_create_users: z.boolean(),
        can_change_user_emails: z.boolean(),
        /** Zulip's personal settings by name; unknown names are left out */
        settings: z.record(z.string(), z.unknown()),
      }),
    ),
  }),
  reply: z.strictObject({ ids: intList }),
});
