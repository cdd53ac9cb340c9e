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

export const profileDataSchema = z.record(
  z.string(),
  z.object({ value: z.string(), rendered_value: z.string().optional() }),
);

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

export const createUser = defineContract({
  subject: "identity.users.create",
  http: { method: "POST", path: "/users", auth: "user" },
  params: z.object({ email: z.string(), password: z.string(), full_name: z.string() }),
  reply: z.object({ user_id: z.number().int() }),
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

// By id before by email: the gateway gives a shared path to the first contract whose path parameter fits.
export const getUser = defineContract({
  subject: "identity.users.get",
  http: { method: "GET", path: "/users/{user_id}", auth: "user" },
  params: z.object({ user_id: z.number().int(), ...userQueryParams }),
  reply: z.object({ user: userResourceSchema }),
});

export const getUserByEmail = defineContract({
  subject: "identity.users.get_by_email",
  http: { method: "GET", path: "/users/{email}", auth: "user" },
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
  http: { method: "PATCH", path: "/users/{user_id}", auth: "user" },
  params: z.object({ user_id: z.number().int(), ...updateUserParams }),
  reply: z.object({}),
});

export const updateUserByEmail = defineContract({
  subject: "identity.users.update_by_email",
  http: { method: "PATCH", path: "/users/{email}", auth: "user" },
  params: z.object({ email: z.string(), ...updateUserParams }),
  reply: z.object({}),
});

const oneOf = <const T extends readonly [number, ...number[]]>(...values: T) => z.literal(values).optional();

/** PATCH /settings: every personal setting Zulip accepts there (E1), by Zulip's name. */
export const settingsParams = z.object({
  full_name: z.string().optional(),
  email: z.string().optional(),
  old_password: z.string().optional(),
  new_password: z.string().optional(),
  twenty_four_hour_time: z.boolean().optional(),
  web_mark_read_on_scroll_policy: oneOf(1, 2, 3),
  web_channel_default_view: oneOf(1, 2, 3, 4),
  starred_message_counts: z.boolean().optional(),
  receives_typing_notifications: z.boolean().optional(),
  web_suggest_update_timezone: z.boolean().optional(),
  fluid_layout_width: z.boolean().optional(),
  high_contrast_mode: z.boolean().optional(),
  web_font_size_px: z.number().int().optional(),
  web_line_height_percent: z.number().int().optional(),
  color_scheme: oneOf(1, 2, 3),
  enable_drafts_synchronization: z.boolean().optional(),
  translate_emoticons: z.boolean().optional(),
  display_emoji_reaction_users: z.boolean().optional(),
  default_language: z.string().optional(),
  web_home_view: z.enum(["recent_topics", "inbox", "all_messages"]).optional(),
  web_escape_navigates_to_home_view: z.boolean().optional(),
  left_side_userlist: z.boolean().optional(),
  emojiset: z.enum(["google", "twitter", "text"]).optional(),
  demote_inactive_streams: oneOf(1, 2, 3),
  user_list_style: oneOf(1, 2, 3),
  web_animate_image_previews: z.enum(["always", "on_hover", "never"]).optional(),
  web_stream_unreads_count_display_policy: oneOf(1, 2, 3),
  hide_ai_features: z.boolean().optional(),
  timezone: z.string().optional(),
  enable_stream_desktop_notifications: z.boolean().optional(),
  enable_stream_email_notifications: z.boolean().optional(),
  enable_stream_push_notifications: z.boolean().optional(),
  enable_stream_audible_notifications: z.boolean().optional(),
  notification_sound: z.string().optional(),
  enable_desktop_notifications: z.boolean().optional(),
  enable_sounds: z.boolean().optional(),
  email_notifications_batching_period_seconds: z.number().int().optional(),
  enable_offline_email_notifications: z.boolean().optional(),
  enable_offline_push_notifications: z.boolean().optional(),
  enable_online_push_notifications: z.boolean().optional(),
  enable_followed_topic_desktop_notifications: z.boolean().optional(),
  enable_followed_topic_email_notifications: z.boolean().optional(),
  enable_followed_topic_push_notifications: z.boolean().optional(),
  enable_followed_topic_audible_notifications: z.boolean().optional(),
  enable_digest_emails: z.boolean().optional(),
  enable_marketing_emails: z.boolean().optional(),
  enable_login_emails: z.boolean().optional(),
  message_content_in_email_notifications: z.boolean().optional(),
  pm_content_in_desktop_notifications: z.boolean().optional(),
  wildcard_mentions_notify: z.boolean().optional(),
  enable_followed_topic_wildcard_mentions_notify: z.boolean().optional(),
  desktop_icon_count_display: oneOf(1, 2, 3, 4),
  realm_name_in_email_notifications_policy: oneOf(1, 2, 3),
  automatically_follow_topics_policy: oneOf(1, 2, 3, 4),
  automatically_unmute_topics_in_muted_streams_policy: oneOf(1, 2, 3, 4),
  automatically_follow_topics_where_mentioned: z.boolean().optional(),
  presence_enabled: z.boolean().optional(),
  enter_sends: z.boolean().optional(),
  send_private_typing_notifications: z.boolean().optional(),
  send_stream_typing_notifications: z.boolean().optional(),
  send_read_receipts: z.boolean().optional(),
  allow_private_data_export: z.boolean().optional(),
  email_address_visibility: oneOf(1, 2, 3, 4, 5),
  web_navigate_to_sent_message: z.boolean().optional(),
});

export const updateSettings = defineContract({
  subject: "identity.settings.update",
  http: { method: "PATCH", path: "/settings", auth: "user" },
  params: settingsParams,
  reply: z.object({}),
});

/** Deprecated aliases (before feature level 80 the settings were split over these paths). */
export const updateDisplaySettings = defineContract({
  ...updateSettings,
  subject: "identity.settings.update_display",
  http: { method: "PATCH", path: "/settings/display", auth: "user" },
});

export const updateNotificationSettings = defineContract({
  ...updateSettings,
  subject: "identity.settings.update_notifications",
  http: { method: "PATCH", path: "/settings/notifications", auth: "user" },
});
