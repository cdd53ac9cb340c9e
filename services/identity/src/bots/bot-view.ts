import { identity, type RealmRef } from "@teamchat/shared";
import type { UserDoc } from "../users/user.schema";
import { apiEmail, avatarUrl } from "../users/user-view";

/** A bot's services as Zulip lists them (get_service_dicts_for_bot): outgoing webhooks and embedded bots only. */
export function botServices(bot: UserDoc): identity.BotService[] {
  const service = bot.botProfile?.service;
  if (!service) return [];
  if (bot.botType === identity.BotType.OUTGOING_WEBHOOK) {
    return [{ base_url: service.baseUrl, token: service.token, interface: service.interface }];
  }
  return [{ service_name: service.name, config_data: bot.botProfile!.config }];
}

/** zulip.yaml's Bot (Zulip's created_bot_event): register's realm_bots and realm_bot add. */
export const toBot = (bot: UserDoc, apiKey: string, realm: Pick<RealmRef, "host">): identity.Bot => ({
  email: apiEmail(bot, realm),
  user_id: bot.userId,
  full_name: bot.fullName,
  bot_type: bot.botType,
  is_active: bot.isActive,
  api_key: apiKey,
  // this server keeps no default channels for bots
  default_sending_stream: null,
  default_events_register_stream: null,
  default_all_public_streams: bot.botProfile?.defaultAllPublicStreams ?? false,
  avatar_url: avatarUrl(bot),
  services: botServices(bot),
  ...(bot.botOwnerId !== null ? { owner_id: bot.botOwnerId } : {}),
});
