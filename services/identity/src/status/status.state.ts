import { identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import { formatUserStatus, hasStatusToShow } from "./user-status";
import type { UserDirectory } from "../users/user-directory";

/** register's user_status: the statuses of active users who set one that says something, by user id. */
export const statusState = ({ users }: { users: UserDirectory }): StateProvider[] => [
  provideState(identity.userStatusState, async (_params, ctx) => {
    const { realm } = requireUser(ctx);
    const all = await users.all(realm.id);
    return {
      user_status: Object.fromEntries(all.filter(hasStatusToShow).map((u) => [String(u.userId), formatUserStatus(u)])),
    };
  }),
];
