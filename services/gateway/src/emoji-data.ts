import type { FastifyInstance } from "fastify";
import { EMOJI_DATA_PATH, emojiApiData } from "@teamchat/shared";

/**
 * Zulip's emoji_api.json, the file register's server_emoji_data_url names: the names of Zulip's
 * emoji, which clients (Zulip's mobile app) offer in their emoji pickers and autocomplete. A static
 * file in Zulip, so served to anyone, without credentials or the API's rate limit.
 */
export function registerEmojiData(app: FastifyInstance): void {
  const body = JSON.stringify(emojiApiData());
  app.get(EMOJI_DATA_PATH, async (_req, reply) => reply.type("application/json").send(body));
}
