import { identityEvents, type EventPublisher, type HandlerContext, type PayloadOf } from "@teamchat/shared";

type UserGroupEvent = PayloadOf<typeof identityEvents.userGroup>["event"];

/**
 * Publishes a user_group event to every user of the organization (Zulip sends
 * them to all active users), before the caller replies: every service's
 * UserGroupMemberships drops its copy of the organization's groups on it.
 */
export function publishUserGroupEvent(
  events: EventPublisher<"identity">,
  realmId: number,
  event: UserGroupEvent,
  ctx: Pick<HandlerContext, "requestId">,
): void {
  events.publish(identityEvents.userGroup, { realmId, userIds: "all", event }, ctx.requestId);
}
