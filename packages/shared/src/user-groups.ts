import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { Role, type Actor } from "./actor";
import { requireRealm, type BusClient, type CallContext } from "./bus";
import type { GroupSettingValue } from "./contracts/common";
import { getUserGroupMemberships } from "./contracts/identity/user-groups";
import { SYSTEM_GROUPS } from "./domain/groups";
import { badRequest } from "./errors";
import type { MentionableGroup } from "./markdown/context";
import { EventCache } from "./event-cache";
import { subscribeEvent, type EventSubscription } from "./events/feed";
import { userGroup } from "./events/identity";

/** Whom a group-setting value is evaluated for. */
export type GroupMember = Pick<Actor, "userId" | "role">;

/** A user-created group's direct members and direct subgroups (identity's data). */
export interface GroupMembers {
  members: readonly number[];
  subgroups: readonly number[];
}

/**
 * System groups (fixed ids) by role, as Zulip's check_user_has_permission_by_role:
 * every user of a role is in its group and, through the nested system groups,
 * in the wider ones. There is no waiting period, so every member is a full member.
 */
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

/** Whether the id names a system group (which no user-created group's id can: those are above LAST_SYSTEM_GROUP_ID). */
export const isSystemGroupId = (groupId: number): boolean => groupId in SYSTEM_GROUP_ROLES;

/**
 * One organization's user groups as permission checks see them: the one
 * implementation of Zulip's is_user_in_group (recursive through subgroups)
 * and of evaluating a group-setting value, used by every service.
 */
export class GroupMembership {
  constructor(private readonly groups: ReadonlyMap<number, GroupMembers> = new Map()) {}

  /** How many user-created groups it knows (the cache's weight). */
  get size(): number {
    return this.groups.size;
  }

  /** Whether a group has this id (a system group, or a user-created one of the organization). */
  exists(groupId: number): boolean {
    return isSystemGroupId(groupId) || this.groups.has(groupId);
  }

  /** Whether the user is in the group: a direct member of it or of any group nested in it (cycles are refused on write, and ignored here). */
  has(groupId: number, user: GroupMember): boolean {
    const seen = new Set<number>();
    const pending = [groupId];
    while (pending.length > 0) {
      const id = pending.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const byRole = SYSTEM_GROUP_ROLES[id];
      if (byRole) {
        if (byRole(user.role)) return true;
        continue;
      }
      const group = this.groups.get(id);
      if (!group) continue;
      if (group.members.includes(user.userId)) return true;
      pending.push(...group.subgroups);
    }
    return false;
  }

  /** Whether Zulip's group-setting value (a group id, or direct members and subgroups) includes the user. */
  includes(value: GroupSettingValue, user: GroupMember): boolean {
    if (typeof value === "number") return this.has(value, user);
    return value.direct_members.includes(user.userId) || value.direct_subgroups.some((id) => this.has(id, user));
  }

  /** The user-created groups nested in the group, at any depth, the group itself excluded (Zulip's get_recursive_strict_subgroups). */
  recursiveSubgroups(groupId: number): number[] {
    const found = new Set<number>();
    const pending = [...(this.groups.get(groupId)?.subgroups ?? [])];
    while (pending.length > 0) {
      const id = pending.pop()!;
      if (found.has(id)) continue;
      found.add(id);
      pending.push(...(this.groups.get(id)?.subgroups ?? []));
    }
    return [...found];
  }
}

/**
 * Zulip's parse_group_setting_value: an anonymous value of one subgroup and no
 * users is that group, an empty one role:nobody.
 */
export function parseGroupSettingValue(value: GroupSettingValue): GroupSettingValue {
  if (typeof value === "number") return value;
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return value.direct_subgroups[0]!;
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 0) return SYSTEM_GROUPS["role:nobody"];
  return value;
}

/** Zulip's are_both_group_setting_values_equal: the same group, or the same members and subgroups in any order. */
export function sameGroupSettingValue(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  const sameSet = (x: number[], y: number[]) => {
    const xs = new Set(x);
    const ys = new Set(y);
    return xs.size === ys.size && [...xs].every((v) => ys.has(v));
  };
  return sameSet(a.direct_members, b.direct_members) && sameSet(a.direct_subgroups, b.direct_subgroups);
}

/** User-created groups kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_GROUPS = 50_000;

/**
 * Each organization's user groups, for services that evaluate group-setting
 * values without asking identity on every request: loaded from identity on
 * first use and forgotten by every instance on each `user_group` event, which
 * identity publishes before it replies (see EventCache).
 */
/** Whether a setting's value is the group, or an anonymous group with it as a direct subgroup. */
export const groupSettingUses = (value: GroupSettingValue, groupId: number): boolean =>
  typeof value === "number" ? value === groupId : value.direct_subgroups.includes(groupId);

/** Zulip's access_user_group_for_setting's existence check: every group a setting value names exists. */
export function checkGroupsExist(groups: GroupMembership, value: GroupSettingValue): void {
  if (typeof value === "number" && !groups.exists(value)) throw badRequest("Invalid user group");
  const missing = typeof value === "object" ? value.direct_subgroups.find((id) => !groups.exists(id)) : undefined;
  if (missing !== undefined) throw badRequest(`Invalid user group ID: ${missing}`);
}

export class UserGroupMemberships {
  private readonly cache: EventCache<{ membership: GroupMembership; byName: Map<string, MentionableGroup> }>;
  private readonly sub: EventSubscription;

  constructor(
    nc: NatsConnection,
    private readonly bus: BusClient,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, {
      name: "user-group-members",
      maxWeight: MAX_CACHED_GROUPS,
      weigh: (groups) => groups.membership.size + 1,
    });
    this.sub = subscribeEvent(nc, userGroup, ({ realmId }) => this.cache.drop(`${realmId}`), { log });
  }

  private load(ctx: CallContext) {
    return this.cache.get(`${requireRealm(ctx).id}`, async () => {
      const { groups } = await this.bus.request(getUserGroupMemberships, {}, ctx);
      return {
        membership: new GroupMembership(
          new Map(groups.map((g) => [g.id, { members: g.members, subgroups: g.direct_subgroup_ids }])),
        ),
        byName: new Map(
          groups.map((g) => [
            g.name.toLowerCase(),
            { id: g.id, name: g.name, deactivated: g.deactivated, canMention: g.can_mention_group },
          ]),
        ),
      };
    });
  }

  /** The groups of the request's organization. */
  async get(ctx: CallContext): Promise<GroupMembership> {
    return (await this.load(ctx)).membership;
  }

  /** The request's organization's user-created groups by lowercased name, for `@*group*` mentions (Zulip's MentionData). */
  async byName(ctx: CallContext): Promise<ReadonlyMap<string, MentionableGroup>> {
    return (await this.load(ctx)).byName;
  }

  stop(): void {
    this.sub.unsubscribe();
  }
}
