// Events identity publishes.
import { z } from "zod";
import { roleSchema } from "../actor";
import { userResourceSchema } from "../contracts/identity/users";
import { clientEventPayload, defineEvent } from "./define";

const int = z.number().int();

/** One changed property of a user, as Zulip's realm_user update event carries it (one property per event). */
export const personUpdateSchema = z.object({
  user_id: int,
  full_name: z.string().optional(),
  timezone: z.string().optional(),
  role: roleSchema.optional(),
  /** the user's API email, when it changed */
  new_email: z.string().optional(),
  custom_profile_field: z
    .object({ id: int, value: z.string().nullable(), rendered_value: z.string().optional() })
    .optional(),
});
export type PersonUpdate = z.infer<typeof personUpdateSchema>;

/** realm_user add/update: seen by everyone in the organization; messaging's user cache listens too. */
export const realmUser = defineEvent(
  "identity",
  "realm_user",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.object({ type: z.literal("realm_user"), op: z.literal("add"), person: userResourceSchema }),
      z.object({ type: z.literal("realm_user"), op: z.literal("update"), person: personUpdateSchema }),
    ]),
  ),
);

/** user_settings update: the user's own setting changed (to that user only). */
export const userSettings = defineEvent(
  "identity",
  "user_settings",
  clientEventPayload(
    z.object({ type: z.literal("user_settings"), op: z.literal("update"), property: z.string(), value: z.unknown() }),
  ),
);

/** Not a client event: every gateway instance drops cached credentials of this user. */
export const authInvalidated = defineEvent("identity", "auth_invalidated", z.object({ userId: int }));
