import {
  USER_GROUP_INVALID_NAME_PREFIXES,
  USER_GROUP_NAME_MAX_LENGTH,
  USER_GROUP_PERMISSION_SETTINGS,
  USER_GROUP_SETTINGS,
  SYSTEM_GROUPS,
  badRequest,
  isDuplicateKey,
  requireUser,
  type GroupSettingValue,
  type Handler,
  type UserGroupSetting,
  type identity,
  type EventPublisher,
  type BusClient,
} from "@teamchat/shared";
import {
  checkActiveUserIds,
  checkGroupSettingValue,
  checkSubgroupIds,
  hasRealmGroupPermission,
  loadRealmGroups,
} from "../user-groups/access";
import { publishUserGroupEvent } from "../user-groups/events";
import { requireMemberOrAdmin } from "../users/access";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { UserDirectory } from "../users/user-directory";

/** Zulip's check_user_group_name. */
export function checkUserGroupName(name: string): string {
  if (name.trim() === "") throw badRequest("User group name can't be empty!");
  if ([...name].length > USER_GROUP_NAME_MAX_LENGTH) {
    throw badRequest(`User group name cannot exceed ${USER_GROUP_NAME_MAX_LENGTH} characters.`);
  }
  const prefix = USER_GROUP_INVALID_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw badRequest(`User group name cannot start with '${prefix}'.`);
  return name;
}

export const groupNameTaken = (name: string) => badRequest(`User group '${name}' already exists.`);

/**
 * POST /user_groups/create (Zulip's add_user_group): the organization's
 * can_create_groups decides; settings not given take Zulip's defaults (the
 * creator alone for can_manage_group and can_add_members_group). Subgroups
 * may be added whatever the creator's other permissions.
 */
export const createUserGroupHandler =
  (deps: {
    groups: UserGroupRepository;
    users: UserDirectory;
    events: EventPublisher<"identity">;
    bus: BusClient;
  }): Handler<typeof identity.createUserGroup> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const realmGroups = await loadRealmGroups(deps, realm.id);
    if (!(await hasRealmGroupPermission(deps, realmGroups, actor, "can_create_groups", ctx))) {
      throw badRequest("Insufficient permission");
    }
    checkActiveUserIds(realmGroups, p.members);
    const name = checkUserGroupName(p.name);
    const settings = Object.fromEntries(
      USER_GROUP_SETTINGS.map((setting): [UserGroupSetting, GroupSettingValue] => {
        const given = p[setting];
        if (given !== undefined) return [setting, checkGroupSettingValue(realmGroups, setting, given)];
        const byDefault = USER_GROUP_PERMISSION_SETTINGS[setting].defaultGroup;
        return [
          setting,
          byDefault === "group_creator"
            ? { direct_members: [actor.userId], direct_subgroups: [] }
            : SYSTEM_GROUPS[byDefault],
        ];
      }),
    ) as Record<UserGroupSetting, GroupSettingValue>;
    const subgroups = [...new Set(p.subgroups ?? [])];
    checkSubgroupIds(realmGroups, subgroups);

    const members = [...new Set(p.members)];
    const created = await deps.groups
      .insert(realm.id, { name, description: p.description, creatorId: actor.userId, members, subgroups, settings })
      .catch((err: unknown) => {
        throw isDuplicateKey(err) ? groupNameTaken(name) : err;
      });
    // Zulip announces the group with its members, then its subgroups
    const group = { id: created.groupId, doc: { ...created, subgroups: [] } };
    publishUserGroupEvent(
      deps.events,
      realm.id,
      { type: "user_group", op: "add", group: realmGroups.view(group) },
      ctx,
    );
    if (subgroups.length > 0) {
      publishUserGroupEvent(
        deps.events,
        realm.id,
        { type: "user_group", op: "add_subgroups", group_id: created.groupId, direct_subgroup_ids: subgroups },
        ctx,
      );
    }
    return { group_id: created.groupId };
  };
