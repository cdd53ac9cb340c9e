import { z } from "zod";
import { roleSchema } from "../../actor";
import { defineContract } from "../../contract";
import { SYSTEM_BOT_EMAILS } from "../../domain/system-bots";
import { setUpNewHumanUser } from "../messaging/channel-admin";

/** Internal (management CLI): the first user of a new organization, an owner who may create users. */
export const createOwner = defineContract({
  subject: "identity.users.create_owner",
  params: z.object({
    email: z.string().email(),
    full_name: z.string().min(1).max(60),
    password: z.string().min(1).nullable().default(null),
  }),
  reply: z.object({ user_id: z.number().int(), api_key: z.string(), created: z.boolean() }),
});

export const profileDataSchema = z.record(
  z.string(),
  z.object({ value: z.string(), rendered_value: z.string().optional() }),
);

/** GET /users/me: the caller as they see themselves (real address, profile data always). */
export const ownUserSchema = z.object({
  avatar_url: z.string(),
  avatar_version: z.number().int(),
  email: z.string(),
  full_name: z.string(),
  is_admin: z.boolean(),
  is_owner: z.boolean(),
  role: roleSchema,
  is_guest: z.boolean(),
  is_bot: z.boolean(),
  is_active: z.boolean(),
  timezone: z.string(),
  date_joined: z.string(),
  user_id: z.number().int(),
  delivery_email: z.string(),
  profile_data: profileDataSchema,
});

export type OwnUser = z.infer<typeof ownUserSchema>;

export const getOwnUser = defineContract({
  subject: "identity.users.get_own",
  http: { method: "GET", path: "/users/me", auth: "user" },
  params: z.object({}),
  reply: ownUserSchema,
});

/**
 * Internal: what other services need to know of users (message senders,
 * recipients, typing audiences). `email` is the API email as everyone sees it.
 * Omit both filters for every user of the organization.
 */
export const userSummarySchema = z.object({
  user_id: z.number().int(),
  email: z.string(),
  delivery_email: z.string(),
  full_name: z.string(),
  role: roleSchema,
  is_active: z.boolean(),
  is_bot: z.boolean(),
  /** Zulip's system bots (Notification Bot): the server posts as them; no one logs in as them */
  is_system_bot: z.boolean(),
  /** a bot's owner (who may, e.g., unsubscribe it as if it were themselves) */
  bot_owner_id: z.number().int().nullable(),
  avatar_url: z.string(),
  avatar_version: z.number().int(),
  receives_typing_notifications: z.boolean(),
  /** whether others may see that this user read a message (read receipts) */
  send_read_receipts: z.boolean(),
  /** whether the user's drafts are kept on the server (messaging refuses /drafts otherwise) */
  enable_drafts_synchronization: z.boolean(),
  /** whether the emoticons the user types (`:)`) are rendered as emoji (Zulip renders each message with its sender's setting) */
  translate_emoticons: z.boolean(),
});

export type UserSummary = z.infer<typeof userSummarySchema>;

export const getUserSummaries = defineContract({
  subject: "identity.users.summaries",
  params: z.object({
    user_ids: z.array(z.number().int()).optional(),
    /** real or API (dummy) addresses */
    emails: z.array(z.string()).optional(),
  }),
  reply: z.object({ users: z.array(userSummarySchema) }),
});

/**
 * Internal: one of the organization's system bots, by address (Zulip's
 * get_system_bot(settings.NOTIFICATION_BOT or settings.WELCOME_BOT, realm_id)),
 * made on first use for organizations older than it. Its id never changes, so
 * callers may keep it.
 */
export const getSystemBot = defineContract({
  subject: "identity.users.system_bot",
  params: z.object({ email: z.enum(SYSTEM_BOT_EMAILS) }),
  reply: z.object({ user_id: z.number().int() }),
});

/** Zulip's User resource (zulip.yaml components/schemas/User). */
export const userResourceSchema = z.object({
  user_id: z.number().int(),
  delivery_email: z.string().nullable(),
  email: z.string(),
  full_name: z.string(),
  date_joined: z.string(),
  is_active: z.boolean(),
  is_owner: z.boolean(),
  is_admin: z.boolean(),
  is_guest: z.boolean(),
  is_bot: z.boolean(),
  bot_type: z.number().int().nullable(),
  bot_owner_id: z.number().int().nullable(),
  role: roleSchema,
  timezone: z.string(),
  avatar_url: z.string().nullable(),
  avatar_version: z.number().int(),
  profile_data: profileDataSchema.optional(),
});

export type UserResource = z.infer<typeof userResourceSchema>;

/** POST /users; the gateway then has messaging set the new person up (setUpNewHumanUser). */
export const createUser = defineContract({
  subject: "identity.users.create",
  http: { method: "POST", path: "/users", auth: "user", followUp: setUpNewHumanUser },
  params: z.object({ email: z.string(), password: z.string(), full_name: z.string() }),
  reply: z.object({ user_id: z.number().int(), follow_up: setUpNewHumanUser.params }),
});

const userQueryParams = {
  client_gravatar: z.boolean().default(true),
  include_custom_profile_fields: z.boolean().default(false),
};

export const getUsers = defineContract({
  subject: "identity.users.list",
  http: { method: "GET", path: "/users", auth: "user" },
  params: z.object(userQueryParams),
  reply: z.object({ members: z.array(userResourceSchema) }),
});

export const getUser = defineContract({
  subject: "identity.users.get",
  http: { method: "GET", path: "/users/{user_id}", auth: "user", precedence: 0 },
  params: z.object({ user_id: z.number().int(), ...userQueryParams }),
  reply: z.object({ user: userResourceSchema }),
});

export const getUserByEmail = defineContract({
  subject: "identity.users.get_by_email",
  http: { method: "GET", path: "/users/{email}", auth: "user", precedence: 1 },
  params: z.object({ email: z.string(), ...userQueryParams }),
  reply: z.object({ user: userResourceSchema }),
});

const updateUserParams = {
  full_name: z.string().optional(),
  role: roleSchema.optional(),
  profile_data: z
    .array(
      z.strictObject({
        id: z.number().int(),
        value: z.union([z.string(), z.array(z.number().int())]).nullable(),
      }),
    )
    .optional(),
  new_email: z.string().optional(),
};

export const updateUser = defineContract({
  subject: "identity.users.update",
  http: { method: "PATCH", path: "/users/{user_id}", auth: "user", precedence: 0 },
  params: z.object({ user_id: z.number().int(), ...updateUserParams }),
  reply: z.object({}),
});

export const updateUserByEmail = defineContract({
  subject: "identity.users.update_by_email",
  http: { method: "PATCH", path: "/users/{email}", auth: "user", precedence: 1 },
  params: z.object({ email: z.string(), ...updateUserParams }),
  reply: z.object({}),
});
