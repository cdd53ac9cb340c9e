import {
  badRequest,
  identity,
  identityEvents,
  requireUser,
  type Handler,
  type EventPublisher,
  type BusClient,
} from "@teamchat/shared";
import { changeBotOwner } from "../bots/bot-owner";
import { accessBotById, botAdministrators } from "../bots/bot-permissions";
import { checkInterfaceType, checkUrl } from "../bots/bot-services";
import { botServices } from "../bots/bot-view";
import { personUpdated } from "../users/events";
import { checkFullName } from "../users/full-name";
import type { BotProfile, UserDoc } from "../users/user.schema";
import { apiEmail, avatarUrl } from "../users/user-view";
import { updateUser } from "./update-user";
import { requireMemberOrAdmin } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";

/** The bot's new owner: an active human of the organization (Zulip's patch_bot_backend). */
async function checkNewOwner(deps: { users: UserDirectory }, realmId: number, ownerId: number): Promise<UserDoc> {
  const owner = await deps.users.byId(realmId, ownerId);
  if (!owner) throw badRequest("Failed to change owner, no such user");
  if (!owner.isActive) throw badRequest("Failed to change owner, user is deactivated");
  if (owner.isBot) throw badRequest("Failed to change owner, bots can't own other bots");
  return owner;
}

/**
 * PATCH /bots/{bot_id} (Zulip's patch_bot_backend): the bot's owner or an
 * administrator changes its name, role, owner, outgoing webhook, embedded
 * bot configuration. Name, owner and services changes reach the bot's
 * administrators as realm_bot updates; what everyone sees as realm_user.
 */
export const updateBotHandler =
  (deps: {
    users: UserDirectory;
    events: EventPublisher<"identity">;
    keys: ApiKeyRepository;
    bus: BusClient;
  }): Handler<typeof identity.updateBot> =>
  async (params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const { users, events } = deps;
    requireMemberOrAdmin(actor);
    let bot = await accessBotById(users, realm, actor, params.bot_id);
    const user_id = bot.userId;
    const toAdministrators = async (change: identityEvents.RealmBotEvent) =>
      events.publish(
        identityEvents.realmBot,
        { realmId: realm.id, userIds: await botAdministrators(users, realm.id, bot), event: change },
        ctx.requestId,
      );
    const changeProfile = async (profile: Partial<BotProfile>) => {
      const current: BotProfile = bot.botProfile ?? { defaultAllPublicStreams: false, service: null, config: {} };
      bot = (await users.change(realm.id, user_id, { botProfile: { ...current, ...profile } }))!;
    };

    const fullName = params.full_name === undefined ? undefined : checkFullName(params.full_name);
    if (fullName !== undefined && fullName !== bot.fullName) {
      if ((await users.all(realm.id)).some((u) => u.isActive && u.fullName === fullName)) {
        throw badRequest("Name is already in use.");
      }
    }
    const owner = params.bot_owner_id === undefined ? null : await checkNewOwner(deps, realm.id, params.bot_owner_id);
    const payloadUrl = params.service_payload_url ? checkUrl("service_payload_url", params.service_payload_url) : null;
    if (payloadUrl !== null) {
      checkInterfaceType(params.service_interface);
      if (bot.botType !== identity.BotType.OUTGOING_WEBHOOK) throw badRequest("Invalid bot type");
    }
    if (params.config_data !== undefined && bot.botType !== identity.BotType.EMBEDDED) {
      throw badRequest("Invalid bot type");
    }

    if (fullName !== undefined && fullName !== bot.fullName) {
      bot = (await users.change(realm.id, user_id, { fullName }))!;
      events.publish(
        identityEvents.realmUser,
        personUpdated(realm.id, { user_id, full_name: fullName }),
        ctx.requestId,
      );
      await toAdministrators({ type: "realm_bot", op: "update", bot: { user_id, full_name: fullName } });
    }
    if (params.role !== undefined) {
      await updateUser(deps, realm, actor, bot, { role: params.role }, ctx);
      bot = (await users.byId(realm.id, user_id))!;
    }
    if (owner && owner.userId !== bot.botOwnerId) {
      bot = await changeBotOwner(deps, realm, bot, owner.userId, ctx.requestId);
    }
    const allPublic = params.default_all_public_streams;
    if (allPublic !== undefined && allPublic !== (bot.botProfile?.defaultAllPublicStreams ?? false)) {
      await changeProfile({ defaultAllPublicStreams: allPublic });
      await toAdministrators({
        type: "realm_bot",
        op: "update",
        bot: { user_id, default_all_public_streams: allPublic },
      });
    }
    if (payloadUrl !== null && bot.botProfile?.service) {
      await changeProfile({
        service: { ...bot.botProfile.service, baseUrl: payloadUrl, interface: params.service_interface },
      });
      await toAdministrators({ type: "realm_bot", op: "update", bot: { user_id, services: botServices(bot) } });
    }
    if (params.config_data !== undefined) {
      await changeProfile({ config: { ...bot.botProfile?.config, ...params.config_data } });
      await toAdministrators({ type: "realm_bot", op: "update", bot: { user_id, services: botServices(bot) } });
    }

    const botOwner = bot.botOwnerId === null ? null : await users.byId(realm.id, bot.botOwnerId);
    return {
      full_name: bot.fullName,
      avatar_url: avatarUrl(bot),
      service_interface: params.service_interface,
      service_payload_url: payloadUrl,
      config_data: params.config_data ?? null,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: bot.botProfile?.defaultAllPublicStreams ?? false,
      ...(botOwner ? { bot_owner: apiEmail(botOwner, realm) } : {}),
    };
  };
