import { z } from "zod";
import { defineContract } from "../../contract";
import { int } from "../common";

/** Zulip's emoji types, as the status and its events name them. */
export const statusReactionTypeSchema = z.enum(["unicode_emoji", "realm_emoji", "zulip_extra_emoji"]);

/**
 * Zulip's UserStatus (format_user_status): only what is set is there; an
 * emoji's name, code and type come together; `away` only when true.
 */
export const userStatusSchema = z.strictObject({
  away: z.literal(true).optional(),
  status_text: z.string().optional(),
  emoji_name: z.string().optional(),
  emoji_code: z.string().optional(),
  reaction_type: statusReactionTypeSchema.optional(),
});
export type UserStatus = z.infer<typeof userStatusSchema>;

/** POST /users/me/status: only the parameters passed change. */
export const updateStatus = defineContract({
  subject: "identity.status.update",
  http: { method: "POST", path: "/users/me/status", auth: "user" },
  params: z.object({
    /** Zulip strips it, then allows 60 characters; "" clears the text */
    status_text: z.string().trim().max(60).optional(),
    /** deprecated: the inverse of the presence_enabled setting */
    away: z.boolean().optional(),
    emoji_name: z.string().optional(),
    emoji_code: z.string().optional(),
    /** Zulip's three, or service_extra_emoji, another spelling of zulip_extra_emoji; anything else is refused by name */
    reaction_type: z.string().optional(),
  }),
  reply: z.object({}),
});

/** GET /users/{user_id}/status (feature level 262): `{}` when the user has set nothing. */
export const getUserStatus = defineContract({
  subject: "identity.status.get",
  http: { method: "GET", path: "/users/{user_id}/status", auth: "user" },
  params: z.object({ user_id: int }),
  reply: z.object({ status: userStatusSchema }),
});

/** Zulip's modern presence format, keyed by user id. */
export const modernPresenceSchema = z.strictObject({ active_timestamp: int, idle_timestamp: int });
export type ModernPresence = z.infer<typeof modernPresenceSchema>;

const legacyStatus = z.enum(["active", "idle"]);

/**
 * Zulip's legacy presence format, keyed by API email: since feature level 178
 * the one client is always "website" and `aggregated` repeats it.
 */
export const legacyPresenceSchema = z.strictObject({
  aggregated: z.strictObject({ client: z.literal("website"), status: legacyStatus, timestamp: int }),
  website: z.strictObject({
    client: z.literal("website"),
    status: legacyStatus,
    timestamp: int,
    pushable: z.literal(false),
  }),
});

export type LegacyPresence = z.infer<typeof legacyPresenceSchema>;

export const presencesSchema = z.record(z.string(), z.union([modernPresenceSchema, legacyPresenceSchema]));

/** POST /users/me/presence: report the caller's presence and, unless ping_only, get the organization's. */
export const updatePresence = defineContract({
  subject: "identity.presence.update",
  http: { method: "POST", path: "/users/me/presence", auth: "user" },
  params: z.object({
    /** "active" or "idle"; Zulip names any other value in its error */
    status: z.string(),
    ping_only: z.boolean().default(false),
    new_user_input: z.boolean().default(false),
    /** deprecated (feature level 263): the modern format, keyed by user id */
    slim_presence: z.boolean().default(false),
    /** feature level 263: only presences changed since; implies the modern format */
    last_update_id: int.optional(),
    /** feature level 288: how far back the first fetch reaches (default 14 days) */
    history_limit_days: int.optional(),
  }),
  reply: z.object({
    presences: presencesSchema.optional(),
    server_timestamp: z.number().optional(),
    presence_last_update_id: int.optional(),
  }),
});

/** GET /realm/presence: every user's presence, in the legacy format. */
export const getRealmPresence = defineContract({
  subject: "identity.presence.realm",
  http: { method: "GET", path: "/realm/presence", auth: "user" },
  params: z.object({}),
  reply: z.object({ presences: z.record(z.string(), legacyPresenceSchema), server_timestamp: z.number() }),
});

/**
 * GET /users/{user_id_or_email}/presence: one user's presence in the legacy
 * format without client and pushable, `aggregated` saying "offline" past the
 * offline threshold. (Zulip's newer slim_presence here is past zulip.yaml's
 * feature level and not offered.)
 */
export const getUserPresence = defineContract({
  subject: "identity.presence.user",
  http: { method: "GET", path: "/users/{user_id_or_email}/presence", auth: "user" },
  params: z.object({ user_id_or_email: z.string() }),
  reply: z.object({
    presence: z.strictObject({
      aggregated: z.strictObject({ status: z.enum(["active", "idle", "offline"]), timestamp: int }),
      website: z.strictObject({ status: legacyStatus, timestamp: int }),
    }),
  }),
});
