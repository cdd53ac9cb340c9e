import { identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";
import { loadRealmGroups } from "./access";

/** register's realm_user_groups: deactivated groups only for clients with include_deactivated_groups. */
export const userGroupsState = (deps: Deps<"groups" | "users">): StateProvider[] => [
  provideState(identity.realmUserGroupsState, async (params, ctx) => {
    const { realm } = requireUser(ctx);
    const includeDeactivated = params.client_capabilities.include_deactivated_groups === true;
    return { realm_user_groups: (await loadRealmGroups(deps, realm.id)).list(includeDeactivated) };
  }),
];
