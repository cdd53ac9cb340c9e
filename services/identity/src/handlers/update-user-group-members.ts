import {
  badRequest,
  requireUser,
  type Handler,
  type HandlerContext,
  type identity,
  type EventPublisher,
  type BusClient,
} from "@teamchat/shared";
import { accessGroupForUpdate, checkActiveUserIds, checkSubgroupIds, loadRealmGroups } from "../user-groups/access";
import { requireMemberOrAdmin } from "../users/access";
import { publishUserGroupEvent } from "../user-groups/events";
import type { RealmGroups } from "../user-groups/realm-groups";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { UserDirectory } from "../users/user-directory";

interface MembershipDeps {
  groups: UserGroupRepository;
  users: UserDirectory;
  events: EventPublisher<"identity">;
  bus: BusClient;
}

interface MembershipChange {
  add?: number[] | undefined;
  delete?: number[] | undefined;
  add_subgroups?: number[] | undefined;
  delete_subgroups?: number[] | undefined;
}

/**
 * Access for a change of members: changing only one's own membership needs
 * the group's can_join_group / can_leave_group, or else the permission to
 * add / remove anyone. Deactivated groups' members may change (FL 391).
 */
async function accessForMembers(
  deps: MembershipDeps,
  realmGroups: RealmGroups,
  groupId: number,
  userIds: number[],
  [own, anyone]: ["can_join_group" | "can_leave_group", "can_add_members_group" | "can_remove_members_group"],
  ctx: HandlerContext,
) {
  const { actor } = requireUser(ctx);
  const opts = { allowDeactivated: true };
  if (userIds.length === 1 && userIds[0] === actor.userId) {
    try {
      return await accessGroupForUpdate(deps, realmGroups, groupId, own, ctx, opts);
    } catch {
      // one may still join or leave with the permission to add or remove anyone
    }
  }
  return accessGroupForUpdate(deps, realmGroups, groupId, anyone, ctx, opts);
}

/**
 * Zulip's add/remove_members_to/from_group_backend and
 * add/remove_subgroups_to/from_group_backend, in that order; everything is
 * checked before anything is written, so an error changes nothing.
 */
async function changeMembership(deps: MembershipDeps, groupId: number, change: MembershipChange, ctx: HandlerContext) {
  const { realm } = requireUser(ctx);
  const realmGroups = await loadRealmGroups(deps, realm.id);
  const add = [...new Set(change.add ?? [])];
  const remove = [...new Set(change.delete ?? [])];
  const addSubgroups = [...new Set(change.add_subgroups ?? [])];
  const removeSubgroups = [...new Set(change.delete_subgroups ?? [])];

  if (add.length > 0) {
    const { doc } = await accessForMembers(
      deps,
      realmGroups,
      groupId,
      add,
      ["can_join_group", "can_add_members_group"],
      ctx,
    );
    checkActiveUserIds(realmGroups, add);
    const already = add.find((id) => doc.members.includes(id));
    if (already !== undefined) throw badRequest(`User ${already} is already a member of this group`);
  }
  if (remove.length > 0) {
    checkActiveUserIds(realmGroups, remove);
    await accessForMembers(deps, realmGroups, groupId, remove, ["can_leave_group", "can_remove_members_group"], ctx);
    const direct = realmGroups.directMembers(groupId);
    const absent = remove.find((id) => !direct.includes(id));
    if (absent !== undefined) throw badRequest(`There is no member '${absent}' in this user group`);
  }
  if (addSubgroups.length > 0) {
    const { doc } = await accessGroupForUpdate(deps, realmGroups, groupId, "can_add_members_group", ctx, {
      allowDeactivated: true,
    });
    checkSubgroupIds(realmGroups, addSubgroups);
    const already = addSubgroups.find((id) => doc.subgroups.includes(id));
    if (already !== undefined) throw badRequest(`User group ${already} is already a subgroup of this group.`);
    // a cycle: the group is one of the new subgroups or nested in one
    const nested = addSubgroups.flatMap((id) => [id, ...realmGroups.membership.recursiveSubgroups(id)]);
    if (nested.includes(groupId)) {
      throw badRequest(`User group ${groupId} is already a subgroup of one of the passed subgroups.`);
    }
  }
  if (removeSubgroups.length > 0) {
    const { doc } = await accessGroupForUpdate(deps, realmGroups, groupId, "can_manage_group", ctx, {
      allowDeactivated: true,
    });
    checkSubgroupIds(realmGroups, removeSubgroups);
    const absent = removeSubgroups.find((id) => !doc.subgroups.includes(id));
    if (absent !== undefined) throw badRequest(`User group ${absent} is not a subgroup of this group.`);
  }

  await deps.groups.changeMembership(realm.id, groupId, {
    add: { members: add, subgroups: addSubgroups },
    remove: { members: remove, subgroups: removeSubgroups },
  });
  const publish = (event: Parameters<typeof publishUserGroupEvent>[2]) =>
    publishUserGroupEvent(deps.events, realm.id, event, ctx);
  if (add.length > 0) publish({ type: "user_group", op: "add_members", group_id: groupId, user_ids: add });
  if (remove.length > 0) publish({ type: "user_group", op: "remove_members", group_id: groupId, user_ids: remove });
  if (addSubgroups.length > 0) {
    publish({ type: "user_group", op: "add_subgroups", group_id: groupId, direct_subgroup_ids: addSubgroups });
  }
  if (removeSubgroups.length > 0) {
    publish({ type: "user_group", op: "remove_subgroups", group_id: groupId, direct_subgroup_ids: removeSubgroups });
  }
}

/** POST /user_groups/{id}/members (Zulip's update_user_group_backend). */
export const updateUserGroupMembersHandler =
  (deps: MembershipDeps): Handler<typeof identity.updateUserGroupMembers> =>
  async (p, ctx) => {
    requireMemberOrAdmin(requireUser(ctx).actor);
    if (!p.add?.length && !p.delete?.length && !p.add_subgroups?.length && !p.delete_subgroups?.length) {
      throw badRequest(
        'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
      );
    }
    await changeMembership(deps, p.user_group_id, p, ctx);
    return {};
  };

/** POST /user_groups/{id}/subgroups. */
export const updateUserGroupSubgroupsHandler =
  (deps: MembershipDeps): Handler<typeof identity.updateUserGroupSubgroups> =>
  async (p, ctx) => {
    requireMemberOrAdmin(requireUser(ctx).actor);
    if (!p.add?.length && !p.delete?.length) {
      throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    }
    await changeMembership(deps, p.user_group_id, { add_subgroups: p.add, delete_subgroups: p.delete }, ctx);
    return {};
  };
