import { identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";
import { RealmGroups } from "./realm-groups";

/**
 * register's realm_user_groups: deactivated groups only for clients with
 * include_deactivated_groups; the organization's groups from memory (every
 * register reads them).
 */
export const userGroupsState = (deps: Deps<"groupLists" | "groups" | "users">): StateProvider[] => [
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
