import { z } from "zod";
import { actorSchema, roleSchema } from "../actor";
import { defineContract } from "../contract";

/** Internal: the gateway checks Basic credentials. */
export const authenticate = defineContract({
  subject: "identity.auth.authenticate",
  params: z.object({ email: z.string(), api_key: z.string() }),
  reply: actorSchema,
});

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

export const fetchApiKey = defineContract({
  subject: "identity.api_keys.fetch",
  http: { method: "POST", path: "/fetch_api_key", auth: "none" },
  params: z.object({ username: z.string(), password: z.string() }),
  reply: z.object({ api_key: z.string(), email: z.string(), user_id: z.number().int() }),
});

const profileDataSchema = z.record(z.string(), z.object({ value: z.string(), rendered_value: z.string().optional() }));

export const getOwnUser = defineContract({
  subject: "identity.users.get_own",
  http: { method: "GET", path: "/users/me", auth: "user" },
  params: z.object({}),
  reply: z.object({
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
  }),
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
  avatar_url: z.string(),
  avatar_version: z.number().int(),
  receives_typing_notifications: z.boolean(),
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
