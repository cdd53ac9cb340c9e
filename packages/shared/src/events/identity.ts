// Events identity publishes.
import { z } from "zod";
import { roleSchema } from "../actor";
import { groupSettingValueSchema } from "../contracts/common";
import { userGroupSchema } from "../contracts/identity/user-groups";
import { botSchema, botServiceSchema } from "../contracts/identity/bots";
import { navigationViewSchema } from "../contracts/identity/navigation-views";
import { onboardingStepSchema } from "../contracts/identity/onboarding-steps";
import { legacyPresenceSchema, statusReactionTypeSchema } from "../contracts/identity/presence";
import { userResourceSchema } from "../contracts/identity/users";
import { clientEventPayload, defineEvent } from "./define";
import { AVATAR_SOURCES } from "../domain/avatars";

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
  /** deactivation and reactivation (Zulip's send_events_for_user_deactivation, do_reactivate_user) */
  changed({ is_active: z.boolean() }),
  changed({ bot_owner_id: int }),
  /** a new avatar (Zulip's notify_avatar_url_change) */
  changed({
    avatar_source: z.enum(AVATAR_SOURCES),
    avatar_url: z.string(),
    avatar_url_medium: z.string(),
    avatar_version: int,
  }),
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

/**
 * realm_bot: what those who administer a bot see of it (Zulip's bot_owner_user_ids:
 * administrators and the bot's owner). `delete` removes it from a previous owner's list.
 */
export const realmBot = defineEvent(
  "identity",
  "realm_bot",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.object({ type: z.literal("realm_bot"), op: z.literal("add"), bot: botSchema }),
      z.object({
        type: z.literal("realm_bot"),
        op: z.literal("update"),
        bot: z.union([
          z.strictObject({ user_id: int, full_name: z.string() }),
          z.strictObject({ user_id: int, api_key: z.string() }),
          z.strictObject({ user_id: int, is_active: z.boolean() }),
          z.strictObject({ user_id: int, owner_id: int }),
          z.strictObject({ user_id: int, default_all_public_streams: z.boolean() }),
          z.strictObject({ user_id: int, services: z.array(botServiceSchema) }),
          z.strictObject({ user_id: int, avatar_url: z.string() }),
        ]),
      }),
      z.object({ type: z.literal("realm_bot"), op: z.literal("delete"), bot: z.strictObject({ user_id: int }) }),
    ]),
  ),
);

export type RealmBotEvent = z.infer<typeof realmBot.payload>["event"];

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
 * realm_user_settings_defaults update: one default of new users' settings changed, to
 * everyone (Zulip's do_set_realm_user_default_setting). identity's instances drop their
 * copy of the organization's defaults on it.
 */
export const realmUserSettingsDefaults = defineEvent(
  "identity",
  "realm_user_settings_defaults",
  clientEventPayload(
    z.object({
      type: z.literal("realm_user_settings_defaults"),
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
        data: z.record(z.string(), z.union([z.string(), z.boolean(), groupSettingValueSchema])),
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
 * Not a client event: an organization's user-created groups as identity's
 * database held them once the domain events' stream had reached sequence
 * `asOf`, for the copies other services keep (EventFedCopy) of groups made
 * before those copies existed. Published once per organization.
 */
export const userGroupsBackfill = defineEvent(
  "identity",
  "user_groups_backfill",
  z.object({
    realmId: int,
    asOf: int,
    groups: z.array(z.object({ id: int, members: z.array(int), direct_subgroup_ids: z.array(int) })),
  }),
);

/** One of a user's logged-in devices was registered or removed (Zulip's actions/devices.py, FL 468): to that user. */
export const device = defineEvent(
  "identity",
  "device",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.object({ type: z.literal("device"), op: z.literal("add"), device_id: int }),
      z.object({ type: z.literal("device"), op: z.literal("remove"), device_id: int }),
    ]),
  ),
);

/** navigation_view add/update/remove (Zulip's do_*_navigation_view): to the user only. */
export const navigationView = defineEvent(
  "identity",
  "navigation_view",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.object({ type: z.literal("navigation_view"), op: z.literal("add"), navigation_view: navigationViewSchema }),
      z.object({
        type: z.literal("navigation_view"),
        op: z.literal("update"),
        fragment: z.string(),
        /** only the properties the request set */
        data: z.strictObject({ is_pinned: z.boolean().optional(), name: z.string().optional() }),
      }),
      z.object({ type: z.literal("navigation_view"), op: z.literal("remove"), fragment: z.string() }),
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

/** onboarding_steps: the user's remaining onboarding steps after they dismissed one (Zulip's do_mark_onboarding_step_as_read), to that user. */
export const onboardingSteps = defineEvent(
  "identity",
  "onboarding_steps",
  clientEventPayload(
    z.strictObject({ type: z.literal("onboarding_steps"), onboarding_steps: z.array(onboardingStepSchema) }),
  ),
);

/**
 * push_device: an E2EE registration's status changed as the push notification
 * service answered it (Zulip's handle_register_push_device_to_bouncer), to its user.
 */
export const pushDevice = defineEvent(
  "identity",
  "push_device",
  clientEventPayload(
    z.union([
      z.strictObject({ type: z.literal("push_device"), push_account_id: z.string(), status: z.literal("active") }),
      z.strictObject({
        type: z.literal("push_device"),
        push_account_id: z.string(),
        status: z.literal("failed"),
        error_code: z.string(),
      }),
    ]),
  ),
);

/**
 * Not a client event: a user's E2EE push registrations changed where Zulip
 * sends no push_device event (one registered, pending; ones the push
 * notification service no longer has, deleted): every identity instance
 * drops its copy of them for register.
 */
export const pushDevicesChanged = defineEvent(
  "identity",
  "push_devices_changed",
  z.object({ realmId: int, userIds: z.array(int) }),
);

/** A user's allow_private_data_export changed: Zulip's realm_export_consent, to human administrators. */
export const realmExportConsent = defineEvent(
  "identity",
  "realm_export_consent",
  clientEventPayload(z.strictObject({ type: z.literal("realm_export_consent"), user_id: int, consented: z.boolean() })),
);
