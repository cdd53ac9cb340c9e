import { badRequest, requireUser, type Handler, type messaging, type EventPublisher } from "@teamchat/shared";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import type { UserDirectory } from "../users/user-directory";
import { accessUserToMute, publishMutedUsers } from "../muted-users/muting";

/** DELETE /users/me/muted_users/{muted_user_id} (Zulip's unmute_user): messages marked read stay read. */
export const unmuteUserHandler =
  (deps: {
    mutedUsers: MutedUserIndex;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.unmuteUser> =>
  async ({ muted_user_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await accessUserToMute(deps, ctx, realm.id, muted_user_id);
    if (!(await deps.mutedUsers.stored.remove(realm.id, actor.userId, muted_user_id))) {
      throw badRequest("User is not muted");
    }
    await publishMutedUsers(deps, ctx, realm.id, actor.userId);
    return {};
  };
