import {
  SYSTEM_GROUPS,
  USER_GROUP_PERMISSION_SETTINGS,
  badRequest,
  isGuest,
  parseGroupSettingValue,
  realmConfig,
  requireUser,
  type Actor,
  type GroupSettingValue,
  type HandlerContext,
  type UserGroupSetting,
  type BusClient,
} from "@teamchat/shared";
import { RealmGroups, type GroupRef } from "./realm-groups";
import type { UserGroupRepository } from "./user-group.repository";
import type { UserDirectory } from "../users/user-directory";

/** The organization's groups and users as they are now (one read of each). */
export async function loadRealmGroups(
  { groups, users }: { groups: UserGroupRepository; users: UserDirectory },
  realmId: number,
): Promise<RealmGroups> {
  const [stored, all] = await Promise.all([groups.all(realmId), users.all(realmId)]);
  return new RealmGroups(stored, all);
}

const deactivatedGroup = () => badRequest("User group is deactivated.");

/** Zulip's get_user_group_by_id_in_realm: "Invalid user group", and deactivated groups refused unless allowed. */
export function groupById(realmGroups: RealmGroups, groupId: number, { allowDeactivated = false } = {}): GroupRef {
  const group = realmGroups.get(groupId);
  if (!group) throw badRequest("Invalid user group");
  if (!allowDeactivated && group.doc?.deactivated) throw deactivatedGroup();
  return group;
}

/**
 * Zulip's user_has_permission_for_group_setting: settings that may not be
 * role:everyone never include guests.
 */
const hasGroupPermission = (
  realmGroups: RealmGroups,
  value: GroupSettingValue,
  actor: Actor,
  allowEveryone: boolean,
): boolean => (allowEveryone || !isGuest(actor)) && realmGroups.membership.includes(value, actor);

/** Zulip's can_manage_all_groups / can_create_user_groups: organization settings that never include guests. */
export async function hasRealmGroupPermission(
  { bus }: { bus: BusClient },
  realmGroups: RealmGroups,
  actor: Actor,
  setting: "can_manage_all_groups" | "can_create_groups",
  ctx: HandlerContext,
): Promise<boolean> {
  const settings = await bus.request(realmConfig.getRealmSettings, {}, ctx);
  return hasGroupPermission(realmGroups, settings[setting], actor, false);
}

/**
 * Zulip's access_user_group_for_update: system groups are never changed; the
 * organization's can_manage_all_groups and the group's can_manage_group may do
 * everything, the group's `permission` setting what it names.
 */
export async function accessGroupForUpdate(
  deps: { bus: BusClient },
  realmGroups: RealmGroups,
  groupId: number,
  permission: UserGroupSetting,
  ctx: HandlerContext,
  { allowDeactivated = false } = {},
): Promise<GroupRef & { doc: NonNullable<GroupRef["doc"]> }> {
  const { actor } = requireUser(ctx);
  const group = groupById(realmGroups, groupId, { allowDeactivated });
  if (!group.doc) throw badRequest("Insufficient permission");
  const granted = (setting: UserGroupSetting) =>
    hasGroupPermission(
      realmGroups,
      group.doc.settings[setting],
      actor,
      USER_GROUP_PERMISSION_SETTINGS[setting].allowEveryone,
    );
  if (
    (await hasRealmGroupPermission(deps, realmGroups, actor, "can_manage_all_groups", ctx)) ||
    granted("can_manage_group") ||
    (permission !== "can_manage_group" && granted(permission))
  ) {
    return { id: group.id, doc: group.doc };
  }
  throw badRequest("Insufficient permission");
}

/** Zulip's user_ids_to_users(allow_deactivated=False): every id an active user of the organization. */
export function checkActiveUserIds(realmGroups: RealmGroups, userIds: readonly number[]): void {
  const invalid = userIds.find((id) => !realmGroups.isActiveUser(id));
  if (invalid !== undefined) throw badRequest(`Invalid user ID: ${invalid}`);
}

/** Zulip's check in lock_subgroups_with_respect_to_supergroup: existing groups, not deactivated. */
export function checkSubgroupIds(realmGroups: RealmGroups, groupIds: readonly number[]): void {
  const missing = groupIds.find((id) => !realmGroups.get(id));
  if (missing !== undefined) throw badRequest(`Invalid user group ID: ${missing}`);
  if (groupIds.some((id) => realmGroups.get(id)!.doc?.deactivated)) throw deactivatedGroup();
}

/**
 * Zulip's parse_group_setting_value and access_user_group_for_setting: an
 * anonymous value of one subgroup is that group, an empty one role:nobody;
 * a named group must exist, be active and be allowed for the setting.
 */
export function checkGroupSettingValue(
  realmGroups: RealmGroups,
  setting: UserGroupSetting,
  given: GroupSettingValue,
): GroupSettingValue {
  const value = parseGroupSettingValue(given);
  if (typeof value === "number") {
    groupById(realmGroups, value);
    if (value === SYSTEM_GROUPS["role:internet"]) {
      throw badRequest(`'${setting}' setting cannot be set to 'role:internet' group.`);
    }
    if (value === SYSTEM_GROUPS["role:everyone"] && !USER_GROUP_PERMISSION_SETTINGS[setting].allowEveryone) {
      throw badRequest(`'${setting}' setting cannot be set to 'role:everyone' group.`);
    }
    return value;
  }
  checkActiveUserIds(realmGroups, value.direct_members);
  checkSubgroupIds(realmGroups, value.direct_subgroups);
  return { direct_members: [...new Set(value.direct_members)], direct_subgroups: [...new Set(value.direct_subgroups)] };
}
