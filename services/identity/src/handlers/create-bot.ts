import {
  Role,
  badRequest,
  identity,
  identityEvents,
  isDuplicateKey,
  requireUser,
  type Handler,
  type EventPublisher,
  type BusClient,
} from "@teamchat/shared";
import { botAdministrators, checkCanCreateBot } from "../bots/bot-permissions";
import { checkInterfaceType, checkUrl, newBotProfile } from "../bots/bot-services";
import { toBot } from "../bots/bot-view";
import { userAdded } from "../users/events";
import { checkFullName, isValidEmail } from "../users/full-name";
import { EmailVisibility } from "../users/user.schema";
import { avatarUrl } from "../users/user-view";
import { requireMemberOrAdmin } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";
import type { UserGroupRepository } from "../user-groups/user-group.repository";

/**
 * POST /bots (Zulip's add_bot_backend): `<short_name>-bot@<organization host>`,
 * owned by the caller, who must be in can_create_bots_group (or, for incoming
 * webhooks, can_create_write_only_bots_group). Everyone hears realm_user add,
 * the bot's administrators realm_bot add with its key.
 */
export const createBotHandler =
  ({
    users,
    keys,
    events,
    bus,
    userDefaults,
    groups,
  }: {
    users: UserDirectory;
    keys: ApiKeyRepository;
    events: EventPublisher<"identity">;
    bus: BusClient;
    userDefaults: RealmUserDefaults;
    groups: UserGroupRepository;
  }): Handler<typeof identity.createBot> =>
  async (params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const shortName = params.short_name.trim();
    if (shortName === "") throw badRequest("Bad name or username");
    const botType = params.bot_type;
    const serviceName =
      botType === identity.BotType.INCOMING_WEBHOOK ? (params.service_name ?? "") : params.service_name || shortName;
    const fullName = checkFullName(params.full_name);
    // The domain is the organization's host (Zulip's get_bot_domain), which may be
    // dotless ("localhost") or an IP: only the part the caller chose is checked.
    if (!isValidEmail(`${shortName}-bot@bot.example`)) throw badRequest("Bad name or username");
    const email = `${shortName}-bot@${realm.host.split(":")[0]}`.toLowerCase();
    const inUse = () => badRequest("Username already in use");
    if (await users.byEmail(realm.id, email)) throw inUse();
    if ((await users.all(realm.id)).some((u) => u.isActive && u.fullName === fullName)) {
      throw badRequest("Name is already in use.");
    }
    await checkCanCreateBot({ bus, groups, users }, realm, actor, botType, ctx);
    checkInterfaceType(params.interface_type);
    const payloadUrl = params.payload_url ? checkUrl("payload_url", params.payload_url) : "";
    const botProfile = newBotProfile(
      { botType, serviceName, payloadUrl, interfaceType: params.interface_type, configData: params.config_data },
      params.default_all_public_streams ?? false,
    );

    let bot;
    try {
      bot = await users.insert({
        realmId: realm.id,
        deliveryEmail: email,
        fullName,
        role: Role.MEMBER,
        isBot: true,
        botType,
        botOwnerId: actor.userId,
        botProfile,
        dateJoined: new Date(),
        timezone: "",
        passwordHash: null,
        canCreateUsers: false,
        canChangeUserEmails: false,
        // Zulip's create_user_profile: the organization's defaults, but a bot's address is always public
        settings: { ...(await userDefaults.forNewUser(realm.id)), email_address_visibility: EmailVisibility.EVERYONE },
      });
    } catch (err) {
      if (isDuplicateKey(err)) throw inUse();
      throw err;
    }
    const apiKey = await keys.issue(realm.id, bot.userId, { bot: true });
    events.publish(identityEvents.realmUser, userAdded(bot, realm), ctx.requestId);
    events.publish(
      identityEvents.realmBot,
      {
        realmId: realm.id,
        userIds: await botAdministrators(users, realm.id, bot),
        event: { type: "realm_bot", op: "add", bot: toBot(bot, apiKey, realm) },
      },
      ctx.requestId,
    );
    return {
      user_id: bot.userId,
      api_key: apiKey,
      avatar_url: avatarUrl(bot),
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: botProfile.defaultAllPublicStreams,
    };
  };
