import { badRequest, type Actor, type HandlerContext } from "@teamchat/shared";
import type { UserSummary, UserDirectory } from "../users/user-directory";

/**
 * Zulip's bulk_principals_to_user_profiles: `principals` (user ids or API
 * addresses, never mixed) as active users, bots included; the actor when none
 * are given. Unknown and deactivated users are refused with Zulip's messages.
 */
export async function principalsToUsers(
  deps: { users: UserDirectory },
  ctx: HandlerContext,
  realmId: number,
  actor: Actor,
  principals: string[] | number[] | undefined,
): Promise<UserSummary[]> {
  if (!principals?.length) return [...(await deps.users.byIds(ctx, realmId, [actor.userId])).values()];
  if (typeof principals[0] === "number") {
    const ids = [...new Set(principals as number[])];
    const found = await deps.users.byIds(ctx, realmId, ids);
    const invalid = ids.find((id) => !found.get(id)?.is_active);
    if (invalid !== undefined) throw badRequest(`Invalid user ID: ${invalid}`);
    return ids.map((id) => found.get(id)!);
  }
  const emails = principals as string[];
  const found = await deps.users.byEmails(ctx, realmId, emails);
  if (emails.some((e) => !found.get(e)?.is_active)) throw badRequest("No such user");
  return [...new Map(emails.map((e) => [found.get(e)!.user_id, found.get(e)!])).values()];
}

/** Zulip's user_directly_controls_user: oneself, or a bot one owns. */
export const directlyControls = (actor: Actor, target: UserSummary): boolean =>
  target.user_id === actor.userId || (target.is_bot && target.bot_owner_id === actor.userId);
