import { badRequest, messagingEvents, type HandlerContext, type EventPublisher } from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";
import type { MutedUserIndex } from "./muted-user-index";

/**
 * Zulip's access_user_by_id(allow_bots=True, allow_deactivated=True): any user
 * of the organization; "No such user" otherwise.
 */
export async function accessUserToMute(
  deps: { users: UserDirectory },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
): Promise<void> {
  if (!(await deps.users.byIds(ctx, realmId, [userId])).has(userId)) throw badRequest("No such user");
}

/** Zulip's muted_users event: whom the user mutes now, to their queues and every instance's MutedUserIndex. */
export async function publishMutedUsers(
  deps: { mutedUsers: MutedUserIndex; events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
): Promise<void> {
  const mutedUsers = await deps.mutedUsers.stored.ofUser(realmId, userId);
  deps.events.publish(
    messagingEvents.mutedUsersChanged,
    { realmId, userIds: [userId], event: { type: "muted_users", muted_users: mutedUsers } },
    ctx.requestId,
  );
}
