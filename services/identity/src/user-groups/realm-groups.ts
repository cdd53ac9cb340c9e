import {
  GroupMembership,
  Role,
  SYSTEM_GROUPS,
  SYSTEM_GROUP_DESCRIPTIONS,
  SYSTEM_GROUP_DIRECT_SUBGROUP,
  USER_GROUP_SETTINGS,
  type GroupMembers,
  type GroupSettingValue,
  type SystemGroupName,
  type identity,
} from "@teamchat/shared";
import type { UserDoc } from "../users/user.schema";
import type { UserGroupDoc } from "./user-group.schema";

/** The role whose users are a system group's direct members (Zulip's SYSTEM_USER_GROUP_ROLE_MAP; every member is a full member). */
const SYSTEM_GROUP_DIRECT_ROLE: Partial<Record<SystemGroupName, number>> = {
  "role:owners": Role.OWNER,
  "role:administrators": Role.ADMINISTRATOR,
  "role:moderators": Role.MODERATOR,
  "role:fullmembers": Role.MEMBER,
  "role:members": Role.MEMBER,
  "role:everyone": Role.GUEST,
};

const SYSTEM_GROUP_NAMES: ReadonlyMap<number, SystemGroupName> = new Map(
  Object.entries(SYSTEM_GROUPS).map(([name, id]) => [id, name as SystemGroupName]),
);

/** A group as the API handlers see it: a system group, or a stored user-created one. */
export type GroupRef =
  { id: number; system: SystemGroupName; doc?: undefined } | { id: number; system?: undefined; doc: UserGroupDoc };

/**
 * An organization's groups at one moment: the stored user-created groups and
 * the system groups, whose direct members follow the users' roles. Loaded per
 * request from the groups collection and the user directory.
 */
export class RealmGroups {
  readonly membership: GroupMembership;
  private readonly stored: Map<number, UserGroupDoc>;
  private readonly activeUsers: UserDoc[];
  private readonly active: Set<number>;

  constructor(groups: UserGroupDoc[], users: UserDoc[]) {
    this.stored = new Map(groups.map((g) => [g.groupId, g]));
    this.activeUsers = users.filter((u) => u.isActive);
    this.active = new Set(this.activeUsers.map((u) => u.userId));
    const all = new Map<number, GroupMembers>(
      groups.map((g) => [g.groupId, { members: g.members, subgroups: g.subgroups }]),
    );
    for (const id of SYSTEM_GROUP_NAMES.keys())
      all.set(id, { members: this.directMembers(id), subgroups: this.directSubgroups(id) });
    this.membership = new GroupMembership(all);
  }

  /** The group with this id, system or user-created, or null. */
  get(groupId: number): GroupRef | null {
    const system = SYSTEM_GROUP_NAMES.get(groupId);
    if (system) return { id: groupId, system };
    const doc = this.stored.get(groupId);
    return doc ? { id: groupId, doc } : null;
  }

  isActiveUser(userId: number): boolean {
    return this.active.has(userId);
  }

  /** User-created groups, in id order. */
  userCreated(): UserGroupDoc[] {
    return [...this.stored.values()];
  }

  /** Direct members that are active users, in id order (Zulip leaves deactivated members out). */
  directMembers(groupId: number): number[] {
    const system = SYSTEM_GROUP_NAMES.get(groupId);
    if (system) {
      const role = SYSTEM_GROUP_DIRECT_ROLE[system];
      return this.activeUsers.filter((u) => u.role === role).map((u) => u.userId);
    }
    return this.activeMembers(this.stored.get(groupId)?.members ?? []);
  }

  private activeMembers(userIds: readonly number[]): number[] {
    return userIds.filter((id) => this.active.has(id)).sort((a, b) => a - b);
  }

  directSubgroups(groupId: number): number[] {
    const system = SYSTEM_GROUP_NAMES.get(groupId);
    if (system) {
      const subgroup = SYSTEM_GROUP_DIRECT_SUBGROUP[system];
      return subgroup ? [SYSTEM_GROUPS[subgroup]] : [];
    }
    return [...(this.stored.get(groupId)?.subgroups ?? [])].sort((a, b) => a - b);
  }

  /** Active users in the group, directly or through subgroups, in id order (Zulip's get_recursive_group_members). */
  recursiveMembers(groupId: number): number[] {
    return this.activeUsers.filter((u) => this.membership.has(groupId, u)).map((u) => u.userId);
  }

  /** A group-setting value as clients see it: anonymous groups without deactivated members. */
  settingForApi(value: GroupSettingValue): GroupSettingValue {
    if (typeof value === "number") return value;
    return {
      direct_members: value.direct_members.filter((id) => this.active.has(id)),
      direct_subgroups: value.direct_subgroups,
    };
  }

  /** Zulip's UserGroup object. */
  view(group: GroupRef): identity.UserGroup {
    const settings = Object.fromEntries(
      USER_GROUP_SETTINGS.map((s) => [
        s,
        group.doc ? this.settingForApi(group.doc.settings[s]) : SYSTEM_GROUPS["role:nobody"],
      ]),
    ) as Record<(typeof USER_GROUP_SETTINGS)[number], GroupSettingValue>;
    return {
      name: group.system ?? group.doc.name,
      date_created: group.doc ? Math.floor(group.doc.dateCreated.getTime() / 1000) : null,
      creator_id: group.doc?.creatorId ?? null,
      description: group.system ? SYSTEM_GROUP_DESCRIPTIONS[group.system] : group.doc.description,
      // a group's own document, which may be newer than what was loaded (the event of a write)
      members: group.doc ? this.activeMembers(group.doc.members) : this.directMembers(group.id),
      direct_subgroup_ids: group.doc ? [...group.doc.subgroups].sort((a, b) => a - b) : this.directSubgroups(group.id),
      id: group.id,
      is_system_group: group.system !== undefined,
      ...settings,
      deactivated: group.doc?.deactivated ?? false,
    };
  }

  /** Zulip's user_groups_in_realm_serialized: system groups and user-created ones, by id. */
  list(includeDeactivated: boolean): identity.UserGroup[] {
    const refs: GroupRef[] = [
      ...[...SYSTEM_GROUP_NAMES].map(([id, system]) => ({ id, system })),
      ...this.userCreated().map((doc) => ({ id: doc.groupId, doc })),
    ];
    return refs
      .filter((g) => includeDeactivated || !g.doc?.deactivated)
      .sort((a, b) => a.id - b.id)
      .map((g) => this.view(g));
  }
}
