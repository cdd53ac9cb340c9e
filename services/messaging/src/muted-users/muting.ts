import { badRequest, messagingEvents, type HandlerContext } from "@teamchat/shared";
import type { Deps } from "../deps";

/**
 * Zulip's access_user_by_id(allow_bots=True, allow_deactivated=True): any user
 * of the organization; "No such user" otherwise.
 */
export async function accessUserToMute(
  deps: Deps<"users">,
  ctx: HandlerContext,
  realmId: number,
  userId: number,
): Promise<void> {
  if (!(await deps.users.byIds(ctx, realmId, [userId])).has(userId)) throw badRequest("No such user");
}

/** Zulip's muted_users event: whom the user mutes now, to their queues and every instance's MutedUserIndex. */
export async function publishMutedUsers(
  deps: Deps<"mutedUsers" | "events">,
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
