import { z } from "zod";
import { roleSchema } from "../../actor";
import { defineContract } from "../../contract";

const int = z.number().int();

/** Zulip's bot types (UserProfile.DEFAULT_BOT ... EMBEDDED_BOT). */
export const BotType = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3, EMBEDDED: 4 } as const;

/** Outgoing webhook formats (Zulip's Service.GENERIC and Service.SLACK). */
export const BotInterface = { GENERIC: 1, SLACK: 2 } as const;

/** A string Zulip's clients send JSON-encoded (json_validator=check_url): JSON text when it parses, else the raw text. */
const jsonEncodedString = z.union([z.string(), z.null()]);

/** The configuration of an outgoing webhook or embedded bot (zulip.yaml BasicBotBase.services). */
export const botServiceSchema = z.union([
  z.strictObject({ base_url: z.string(), token: z.string(), interface: int }),
  z.strictObject({ service_name: z.string(), config_data: z.record(z.string(), z.string()) }),
]);
export type BotService = z.infer<typeof botServiceSchema>;

/** zulip.yaml's Bot: a bot as those who administer it see it (register's realm_bots, realm_bot add). */
export const botSchema = z.strictObject({
  email: z.string(),
  user_id: int,
  full_name: z.string(),
  bot_type: int.nullable(),
  is_active: z.boolean(),
  api_key: z.string(),
  default_sending_stream: z.string().nullable(),
  default_events_register_stream: z.string().nullable(),
  default_all_public_streams: z.boolean(),
  avatar_url: z.string(),
  services: z.array(botServiceSchema),
  owner_id: int.nullable().optional(),
});
export type Bot = z.infer<typeof botSchema>;

/**
 * POST /bots (Zulip's add_bot_backend). Default channels (`default_sending_stream`,
 * `default_events_register_stream`) are not kept by this server: they are not
 * parameters here, so a client sending them finds them in ignored_parameters_unsupported.
 */
export const createBot = defineContract({
  subject: "identity.bots.create",
  http: { method: "POST", path: "/bots", auth: "user" },
  params: z.object({
    full_name: z.string(),
    short_name: z.string(),
    bot_type: int.default(BotType.GENERIC),
    payload_url: jsonEncodedString.optional(),
    service_name: z.string().optional(),
    config_data: z.record(z.string(), z.string()).default({}),
    interface_type: int.default(BotInterface.GENERIC),
    default_all_public_streams: z.boolean().optional(),
  }),
  reply: z.object({
    user_id: int,
    api_key: z.string(),
    avatar_url: z.string(),
    default_sending_stream: z.string().nullable(),
    default_events_register_stream: z.string().nullable(),
    default_all_public_streams: z.boolean(),
  }),
});

/** GET /bots (Zulip's get_bots_backend): the caller's own active bots, oldest first. */
export const getBots = defineContract({
  subject: "identity.bots.list",
  http: { method: "GET", path: "/bots", auth: "user" },
  params: z.object({}),
  reply: z.object({
    bots: z.array(
      z.strictObject({
        username: z.string(),
        full_name: z.string(),
        api_key: z.string(),
        avatar_url: z.string(),
        default_sending_stream: z.string().nullable(),
        default_events_register_stream: z.string().nullable(),
        default_all_public_streams: z.boolean(),
      }),
    ),
  }),
});

/** PATCH /bots/{bot_id} (Zulip's patch_bot_backend): the bot's owner or an administrator. */
export const updateBot = defineContract({
  subject: "identity.bots.update",
  http: { method: "PATCH", path: "/bots/{bot_id}", auth: "user" },
  params: z.object({
    bot_id: int,
    full_name: z.string().optional(),
    role: roleSchema.optional(),
    bot_owner_id: int.optional(),
    config_data: z.record(z.string(), z.string()).optional(),
    service_payload_url: jsonEncodedString.optional(),
    service_interface: int.default(BotInterface.GENERIC),
    default_all_public_streams: z.boolean().optional(),
  }),
  reply: z.object({
    full_name: z.string(),
    avatar_url: z.string(),
    service_interface: int,
    service_payload_url: z.string().nullable(),
    config_data: z.record(z.string(), z.string()).nullable(),
    default_sending_stream: z.string().nullable(),
    default_events_register_stream: z.string().nullable(),
    default_all_public_streams: z.boolean(),
    bot_owner: z.string().optional(),
  }),
});

/** DELETE /bots/{bot_id} (Zulip's deactivate_bot_backend). */
export const deactivateBot = defineContract({
  subject: "identity.bots.deactivate",
  http: { method: "DELETE", path: "/bots/{bot_id}", auth: "user" },
  params: z.object({ bot_id: int }),
  reply: z.object({}),
});

/** GET /bots/{bot_id}/api_key (Zulip's get_bot_api_key, FL 463). */
export const getBotApiKey = defineContract({
  subject: "identity.bots.api_key",
  http: { method: "GET", path: "/bots/{bot_id}/api_key", auth: "user" },
  params: z.object({ bot_id: int }),
  reply: z.strictObject({ api_key: z.string() }),
});

/** POST /bots/{bot_id}/api_key/regenerate (Zulip's regenerate_bot_api_key). */
export const regenerateBotApiKey = defineContract({
  subject: "identity.bots.regenerate_api_key",
  http: { method: "POST", path: "/bots/{bot_id}/api_key/regenerate", auth: "user" },
  params: z.object({ bot_id: int }),
  reply: z.object({ api_key: z.string() }),
});
