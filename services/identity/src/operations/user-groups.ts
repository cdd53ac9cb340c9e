import { identity, type BusServer, type BusClient, type ChannelCopy, type EventPublisher } from "@teamchat/shared";
import { createUserGroupHandler } from "../handlers/create-user-group";
import { deactivateUserGroupHandler } from "../handlers/deactivate-user-group";
import {
  getIsUserGroupMemberHandler,
  getUserGroupMembersHandler,
  getUserGroupMembershipsHandler,
  getUserGroupSubgroupsHandler,
  getUserGroupsHandler,
} from "../handlers/get-user-groups";
import { updateUserGroupHandler } from "../handlers/update-user-group";
import { updateUserGroupMembersHandler, updateUserGroupSubgroupsHandler } from "../handlers/update-user-group-members";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { UserDirectory } from "../users/user-directory";

/** User groups: their creation, changes, members and subgroups. */
export function registerUserGroupOperations(
  server: BusServer,
  {
    users,
    groups,
    channels,
    events,
    bus,
  }: {
    users: UserDirectory;
    groups: UserGroupRepository;
    channels: ChannelCopy;
    events: EventPublisher<"identity">;
    bus: BusClient;
  },
): void {
  server
    .handle(identity.createUserGroup, createUserGroupHandler({ groups, users, events, bus }))
    .handle(identity.getUserGroups, getUserGroupsHandler({ groups, users }))
    .handle(identity.updateUserGroup, updateUserGroupHandler({ groups, users, events, bus }))
    .handle(identity.deactivateUserGroup, deactivateUserGroupHandler({ groups, users, events, bus, channels }))
    .handle(identity.updateUserGroupMembers, updateUserGroupMembersHandler({ groups, users, events, bus }))
    .handle(identity.updateUserGroupSubgroups, updateUserGroupSubgroupsHandler({ groups, users, events, bus }))
    .handle(identity.getUserGroupMembers, getUserGroupMembersHandler({ groups, users }))
    .handle(identity.getIsUserGroupMember, getIsUserGroupMemberHandler({ groups, users }))
    .handle(identity.getUserGroupSubgroups, getUserGroupSubgroupsHandler({ groups, users }))
    .handle(identity.getUserGroupMemberships, getUserGroupMembershipsHandler({ groups }));
}
