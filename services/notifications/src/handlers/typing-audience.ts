import { identity, type BusClient, type CallContext } from "@teamchat/shared";

type UserSummary = identity.UserSummary;

/** The users among `userIds` who get typing events: active, with receives_typing_notifications on. */
export async function typingSummaries(bus: BusClient, ctx: CallContext, userIds: number[]): Promise<UserSummary[]> {
  const { users } = await bus.request(identity.getUserSummaries, { user_ids: [...new Set(userIds)] }, ctx);
  return users;
}

export const notified = (users: UserSummary[]): number[] =>
  users.filter((u) => u.is_active && u.receives_typing_notifications).map((u) => u.user_id);
