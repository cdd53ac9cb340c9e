// Events identity publishes.
import { z } from "zod";
import { roleSchema } from "../actor";
import { userGroupSchema } from "../contracts/identity/user-groups";
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

/** Not a client event: every gateway instance drops cached credentials of this user. */
export const authInvalidated = defineEvent("identity", "auth_invalidated", z.object({ userId: int }));

/** Users of an organization were added or changed: every identity instance forgets its copy of them (UserDirectory). */
export const usersChanged = defineEvent("identity", "users_changed", z.object({ realmId: int }));

const groupSettingValue = z.union([int, z.object({ direct_members: z.array(int), direct_subgroups: z.array(int) })]);

/**
 * Zulip's user_group events, seen by every active user of the organization.
 * Two fields serve notifications' per-client shaping (clientEvent) and are
 * removed before clients see them: `for_reactivation` on an add that
 * reactivates a group, and `deactivated` on a name update (Zulip's
 * include_deactivated_groups client capability).
 */
export const userGroup = defineEvent(
  "identity",
  "user_group",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.object({
        type: z.literal("user_group"),
        op: z.literal("add"),
        group: userGroupSchema,
        for_reactivation: z.boolean().optional(),
      }),
      z.object({
        type: z.literal("user_group"),
        op: z.literal("update"),
        group_id: int,
        data: z.record(z.string(), z.union([z.string(), z.boolean(), groupSettingValue])),
        deactivated: z.boolean().optional(),
      }),
      z.object({
        type: z.literal("user_group"),
        op: z.enum(["add_members", "remove_members"]),
        group_id: int,
        user_ids: z.array(int),
      }),
      z.object({
        type: z.literal("user_group"),
        op: z.enum(["add_subgroups", "remove_subgroups"]),
        group_id: int,
        direct_subgroup_ids: z.array(int),
      }),
      z.object({ type: z.literal("user_group"), op: z.literal("remove"), group_id: int }),
    ]),
  ),
);

/**
 * Zulip's invites_changed: the set of invitations changed; clients showing them
 * fetch GET /invites again. Seen by administrators and the invitation's creator
 * (Zulip's notify_invites_changed).
 */
export const invitesChanged = defineEvent(
  "identity",
  "invites_changed",
  clientEventPayload(z.strictObject({ type: z.literal("invites_changed") })),
);
