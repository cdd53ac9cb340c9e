import { z } from "zod";
import { realmRefSchema } from "../../actor";
import { defineContract } from "../../contract";
import { int } from "../common";

/**
 * Internal: an organization by id, with the settings its mail follows, for
 * work done outside any request (missed-message emails, notification
 * decisions, the weekly digest): its address and name, Zulip's
 * message_content_allowed_in_email_notifications and its digest settings.
 */
export const getRealmMailContext = defineContract({
  subject: "realm-config.realms.mail_context",
  params: z.object({ realm_id: int }),
  reply: z.strictObject({
    realm: realmRefSchema.strict(),
    message_content_allowed_in_email_notifications: z.boolean(),
    digest_emails_enabled: z.boolean(),
    /** Monday 0 .. Sunday 6 */
    digest_weekday: int,
  }),
});
export type RealmMailContext = z.infer<typeof getRealmMailContext.reply>;
