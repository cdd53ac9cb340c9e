// Events identity publishes.
import { z } from "zod";
import { roleSchema } from "../actor";
import { legacyPresenceSchema, statusReactionTypeSchema } from "../contracts/identity/presence";
import { userResourceSchema } from "../contracts/identity/users";
import { clientEventPayload, defineEvent } from "./define";

const int = z.number().int();

/** A realm_user update's person with one changed property, the only shapes Zulip sends. */
const changed = <S extends z.ZodRawShape>(shape: S) => z.strictObject({ user_id: int, ...shape });

/** One changed property of a user, as Zulip's realm_user update event carries it (one property per event). */
export const personUpdateSchema = z.union([
  changed({ full_name: z.string() }),
  changed({ timezone: z.string() }),
  changed({ role: roleSchema }),
  /** the user's API email, when it changed (their address, or their email_address_visibility) */
  changed({ new_email: z.string() }),
  changed({
    custom_profile_field: z.strictObject({
      id: int,
      value: z.string().nullable(),
      rendered_value: z.string().optional(),
    }),
  }),
]);
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

/** A personal setting's value: Zulip's settings are booleans, integers or strings. */
export const settingValueSchema = z.union([z.boolean(), int, z.string()]);

/** user_settings update: the user's own setting changed (to that user only). */
export const userSettings = defineEvent(
  "identity",
  "user_settings",
  clientEventPayload(
    z.object({
      type: z.literal("user_settings"),
      op: z.literal("update"),
      property: z.string(),
      value: settingValueSchema,
    }),
  ),
);

/**
 * user_status: what a status update passed (Zulip's do_update_user_status; an
 * emoji's name, code and type together), to everyone who can see the user.
 */
export const userStatus = defineEvent(
  "identity",
  "user_status",
  clientEventPayload(
    z.strictObject({
      type: z.literal("user_status"),
      user_id: int,
      away: z.boolean().optional(),
      status_text: z.string().optional(),
      emoji_name: z.string().optional(),
      emoji_code: z.string().optional(),
      reaction_type: statusReactionTypeSchema.optional(),
    }),
  ),
);

/**
 * presence: a user came online (or changed presence_enabled), in the legacy
 * format the mobile app reads (Zulip's send_presence_changed).
 */
export const presence = defineEvent(
  "identity",
  "presence",
  clientEventPayload(
    z.strictObject({
      type: z.literal("presence"),
      user_id: int,
      email: z.string(),
      server_timestamp: z.number(),
      presence: legacyPresenceSchema.pick({ website: true }),
    }),
  ),
);

/** Not a client event: every gateway instance drops cached credentials of this user. */
export const authInvalidated = defineEvent("identity", "auth_invalidated", z.object({ userId: int }));

/** Users of an organization were added or changed: every identity instance forgets its copy of them (UserDirectory). */
export const usersChanged = defineEvent("identity", "users_changed", z.object({ realmId: int }));
