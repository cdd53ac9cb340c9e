import {
  Role,
  SYSTEM_GROUPS,
  ZulipError,
  badRequest,
  identity,
  isAdmin,
  isOwner,
  type Actor,
  type GroupSettingValue,
  type RealmRef,
  type realmConfig,
} from "@teamchat/shared";
import { accessUserById } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { UserDoc } from "../users/user.schema";

const { BotType } = identity;

/** Zulip's human_users_only. */
export function requireHuman(actor: Actor): void {
  if (actor.isBot) throw badRequest("This endpoint does not accept bot requests.");
}

/** Zulip's require_member_or_admin: guests and bots may not manage bots. */
export function requireMemberOrAdmin(actor: Actor): void {
  if (actor.role === Role.GUEST) throw badRequest("Not allowed for guest users");
  requireHuman(actor);
}

/** Zulip's UserProfile.can_admin_user: administrators, and the owner of a bot. */
export const canAdminUser = (actor: Pick<Actor, "userId" | "role">, target: UserDoc): boolean =>
  target.botOwnerId === actor.userId || isAdmin(actor);

/** System groups by role (fixed ids, see SYSTEM_GROUPS); user-created groups are evaluated by the user groups work. */
const SYSTEM_GROUP_ROLES: Record<number, (role: number) => boolean> = {
  [SYSTEM_GROUPS["role:owners"]]: (r) => r <= Role.OWNER,
  [SYSTEM_GROUPS["role:administrators"]]: (r) => r <= Role.ADMINISTRATOR,
  [SYSTEM_GROUPS["role:moderators"]]: (r) => r <= Role.MODERATOR,
  [SYSTEM_GROUPS["role:fullmembers"]]: (r) => r <= Role.MEMBER,
  [SYSTEM_GROUPS["role:members"]]: (r) => r <= Role.MEMBER,
  [SYSTEM_GROUPS["role:everyone"]]: () => true,
  [SYSTEM_GROUPS["role:internet"]]: () => true,
  [SYSTEM_GROUPS["role:nobody"]]: () => false,
};

function groupSettingIncludes(value: GroupSettingValue, user: Pick<Actor, "userId" | "role">): boolean {
  const inGroup = (id: number) => SYSTEM_GROUP_ROLES[id]?.(user.role) ?? false;
  if (typeof value === "number") return inGroup(value);
  return value.direct_members.includes(user.userId) || value.direct_subgroups.some(inGroup);
}

/**
 * Zulip's check_can_create_bot and check_valid_bot_type: can_create_bots_group
 * may create every type; can_create_write_only_bots_group only incoming webhooks.
 */
export function checkCanCreateBot(settings: realmConfig.RealmSettings, actor: Actor, botType: number): void {
  const allBots = groupSettingIncludes(settings.can_create_bots_group, actor);
  const writeOnly = groupSettingIncludes(settings.can_create_write_only_bots_group, actor);
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
    throw new ZulipError("UNAUTHORIZED_PRINCIPAL", "Must be an organization owner", 400);
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
