import {
  identity,
  provideState,
  requireUser,
  type StateProvider,
  type EventKeyedCache,
  type identityEvents,
} from "@teamchat/shared";
import { RealmGroups } from "./realm-groups";
import type { UserGroupDoc } from "./user-group.schema";
import type { UserGroupRepository } from "./user-group.repository";
import type { UserDirectory } from "../users/user-directory";

/** Each organization's stored groups, for register (dropped on user_group events). */
export type UserGroupLists = EventKeyedCache<UserGroupDoc[], typeof identityEvents.userGroup.payload>;

/**
 * register's realm_user_groups: deactivated groups only for clients with
 * include_deactivated_groups; the organization's groups from memory (every
 * register reads them).
 */
export const userGroupsState = (deps: {
  groupLists: UserGroupLists;
  groups: UserGroupRepository;
  users: UserDirectory;
}): StateProvider[] => [
  provideState(identity.realmUserGroupsState, async (params, ctx) => {
    const { realm } = requireUser(ctx);
    const includeDeactivated = params.client_capabilities.include_deactivated_groups === true;
    const [groups, users] = await Promise.all([
      deps.groupLists.get(`${realm.id}`, () => deps.groups.all(realm.id)),
      deps.users.all(realm.id),
    ]);
    return { realm_user_groups: new RealmGroups(groups, users).list(includeDeactivated) };
  }),
];
