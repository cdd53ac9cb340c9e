import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { MutedUserIndex } from "./muted-user-index";

/** register's muted_users: whom the caller muted, from memory. */
export const mutedUsersState = (deps: { mutedUsers: MutedUserIndex }): StateProvider[] => [
  provideState(messaging.mutedUsersState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { muted_users: [...(await deps.mutedUsers.ofUser(realm.id, actor.userId))] };
  }),
];
