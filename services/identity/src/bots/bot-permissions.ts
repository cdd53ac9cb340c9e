import {
  badRequest,
  identity,
  isAdmin,
  isOwner,
  realmConfig,
  type Actor,
  type HandlerContext,
  type RealmRef,
  mustBeOwner,
  type BusClient,
} from "@teamchat/shared";
import { loadRealmGroups } from "../user-groups/access";
import { accessUserById } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { UserDoc } from "../users/user.schema";
import type { UserGroupRepository } from "../user-groups/user-group.repository";

const { BotType } = identity;

/** Zulip's UserProfile.can_admin_user: administrators, and the owner of a bot. */
export const canAdminUser = (actor: Pick<Actor, "userId" | "role">, target: UserDoc): boolean =>
  target.botOwnerId === actor.userId || isAdmin(actor);

/**
 * Zulip's check_can_create_bot and check_valid_bot_type: can_create_bots_group
 * may create every type; can_create_write_only_bots_group only incoming webhooks.
 * Both are evaluated with the organization's user groups.
 */
export async function checkCanCreateBot(
  deps: { bus: BusClient; groups: UserGroupRepository; users: UserDirectory },
  realm: RealmRef,
  actor: Actor,
  botType: number,
  ctx: HandlerContext,
): Promise<void> {
  const [settings, realmGroups] = await Promise.all([
    deps.bus.request(realmConfig.getRealmSettings, {}, ctx),
    loadRealmGroups(deps, realm.id),
  ]);
  const allBots = realmGroups.membership.includes(settings.can_create_bots_group, actor);
  const writeOnly = realmGroups.membership.includes(settings.can_create_write_only_bots_group, actor);
  if (!allBots && !(botType === BotType.INCOMING_WEBHOOK && writeOnly)) throw badRequest("Insufficient permission");
  const allowed: number[] = allBots ? Object.values(BotType) : [BotType.INCOMING_WEBHOOK];
  if (!allowed.includes(botType)) throw badRequest("Invalid bot type");
}

/**
 * Zulip's access_bot_by_id: a bot of the organization that the caller may
 * administer; one holding can_create_users needs an owner.
 */
export async function accessBotById(
  users: UserDirectory,
  realm: RealmRef,
  actor: Actor,
  botId: number,
): Promise<UserDoc> {
  const bot = await accessUserById(users, realm, botId).catch(() => null);
  if (!bot?.isBot) throw badRequest("No such bot");
  if (!canAdminUser(actor, bot)) throw badRequest("Insufficient permission");
  if (bot.canCreateUsers && !isOwner(actor)) {
    throw mustBeOwner();
  }
  return bot;
}

/** Zulip's bot_owner_user_ids: who receives realm_bot events of a bot (active administrators and its owner). */
export async function botAdministrators(users: UserDirectory, realmId: number, bot: UserDoc): Promise<number[]> {
  const all = await users.all(realmId);
  const ids = new Set(all.filter((u) => u.isActive && !u.isBot && isAdmin(u)).map((u) => u.userId));
  const owner = bot.botOwnerId === null ? null : await users.byId(realmId, bot.botOwnerId);
  if (owner?.isActive) ids.add(owner.userId);
  return [...ids].sort((a, b) => a - b);
}
