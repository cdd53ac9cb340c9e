import { badRequest, requireRealm, requireUser, type Handler, type identity } from "@teamchat/shared";
import { groupById, loadRealmGroups } from "../user-groups/access";
import { requireMemberOrAdmin } from "../users/access";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { UserDirectory } from "../users/user-directory";

/** GET /user_groups: system groups and user-created ones, by id; deactivated ones when asked for. */
export const getUserGroupsHandler =
  (deps: { groups: UserGroupRepository; users: UserDirectory }): Handler<typeof identity.getUserGroups> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    return { user_groups: (await loadRealmGroups(deps, realm.id)).list(p.include_deactivated_groups) };
  };

/** GET /user_groups/{id}/members: active members, through subgroups unless direct_member_only. */
export const getUserGroupMembersHandler =
  (deps: { groups: UserGroupRepository; users: UserDirectory }): Handler<typeof identity.getUserGroupMembers> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const realmGroups = await loadRealmGroups(deps, realm.id);
    const { id } = groupById(realmGroups, p.user_group_id);
    return { members: p.direct_member_only ? realmGroups.directMembers(id) : realmGroups.recursiveMembers(id) };
  };

/** GET /user_groups/{id}/members/{user_id}: Zulip's is_user_in_group for an active user. */
export const getIsUserGroupMemberHandler =
  (deps: { groups: UserGroupRepository; users: UserDirectory }): Handler<typeof identity.getIsUserGroupMember> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const realmGroups = await loadRealmGroups(deps, realm.id);
    const { id } = groupById(realmGroups, p.user_group_id);
    const target = await deps.users.byId(realm.id, p.user_id);
    if (!target || !target.isActive) throw badRequest("No such user");
    const members = p.direct_member_only ? realmGroups.directMembers(id) : realmGroups.recursiveMembers(id);
    return { is_user_group_member: members.includes(target.userId) };
  };

/** GET /user_groups/{id}/subgroups: nested groups, at any depth unless direct_subgroup_only. */
export const getUserGroupSubgroupsHandler =
  (deps: { groups: UserGroupRepository; users: UserDirectory }): Handler<typeof identity.getUserGroupSubgroups> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const realmGroups = await loadRealmGroups(deps, realm.id);
    const { id } = groupById(realmGroups, p.user_group_id);
    return {
      subgroups: p.direct_subgroup_only
        ? realmGroups.directSubgroups(id)
        : realmGroups.membership.recursiveSubgroups(id).sort((a, b) => a - b),
    };
  };

/** Internal: the user-created groups' names, direct members and subgroups, for UserGroupMemberships. */
export const getUserGroupMembershipsHandler =
  ({ groups }: { groups: UserGroupRepository }): Handler<typeof identity.getUserGroupMemberships> =>
  async (_p, ctx) => {
    const realm = requireRealm(ctx);
    return {
      groups: (await groups.all(realm.id)).map((g) => ({
        id: g.groupId,
        name: g.name,
        deactivated: g.deactivated,
        members: g.members,
        can_mention_group: g.settings.can_mention_group,
        direct_subgroup_ids: g.subgroups,
      })),
    };
  };
