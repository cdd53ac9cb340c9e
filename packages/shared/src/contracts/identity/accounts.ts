import { z } from "zod";
import { defineContract } from "../../contract";
import { settingsParams } from "./settings";

/** DELETE /users/{user_id} (Zulip's deactivate_user_backend): administrators. */
export const deactivateUser = defineContract({
  subject: "identity.users.deactivate",
  http: { method: "DELETE", path: "/users/{user_id}", auth: "user", precedence: 0 },
  params: z.object({
    user_id: z.number().int(),
    /** Zulip mails the user when not null; this server sends no mail, so it is only checked (at most 2000 characters) */
    deactivation_notification_comment: z.string().max(2000).optional(),
  }),
  reply: z.object({}),
});

/** POST /users/{user_id}/reactivate (Zulip's reactivate_user_backend): administrators. */
export const reactivateUser = defineContract({
  subject: "identity.users.reactivate",
  http: { method: "POST", path: "/users/{user_id}/reactivate", auth: "user" },
  params: z.object({ user_id: z.number().int() }),
  reply: z.object({}),
});

/** DELETE /users/me (Zulip's deactivate_user_own_backend). */
export const deactivateOwnUser = defineContract({
  subject: "identity.users.deactivate_own",
  http: { method: "DELETE", path: "/users/me", auth: "user" },
  params: z.object({}),
  reply: z.object({}),
});

/** POST /users/me/api_key/regenerate (Zulip's regenerate_api_key): a new key; every earlier one stops working. */
export const regenerateApiKey = defineContract({
  subject: "identity.api_keys.regenerate",
  http: { method: "POST", path: "/users/me/api_key/regenerate", auth: "user" },
  params: z.object({}),
  reply: z.object({ api_key: z.string() }),
});

/**
 * PATCH /realm/user_settings_defaults (Zulip's update_realm_user_settings_defaults):
 * the personal settings new users start with. Zulip leaves out what an
 * administrator should not choose for others (enable_login_emails,
 * enable_marketing_emails, allow_private_data_export) and the language.
 */
export const updateRealmUserSettingsDefaults = defineContract({
  subject: "identity.user_settings_defaults.update",
  http: { method: "PATCH", path: "/realm/user_settings_defaults", auth: "user" },
  params: settingsParams.omit({
    full_name: true,
    email: true,
    old_password: true,
    new_password: true,
    timezone: true,
    default_language: true,
    enable_login_emails: true,
    enable_marketing_emails: true,
    allow_private_data_export: true,
  }),
  reply: z.object({}),
});
