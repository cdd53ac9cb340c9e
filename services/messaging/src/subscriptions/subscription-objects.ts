import type { Actor, CallContext, UserGroupMemberships } from "@teamchat/shared";
import { canSeeMetadata } from "../channels/channel-access";
import { neverSubscribedView, subscriptionView } from "../channels/channel-view";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "./subscription-directory";

/**
 * The user's channels as Zulip's register and GET /users/me/subscriptions give them:
 * subscriptions (Subscription objects), unsubscribed (former subscriptions) and
 * never_subscribed (other channels the user can see), each sorted by name.
 * Archived channels only for clients that declared archived_channels (register).
 */
export async function subscriptionObjects(
  deps: { channels: ChannelDirectory; subscriptions: SubscriptionDirectory; userGroups: UserGroupMemberships },
  ctx: CallContext,
  realmId: number,
  actor: Actor,
  withSubscribers: boolean,
  includeArchived = false,
) {
  const [all, subs, groups] = await Promise.all([
    deps.channels.all(realmId),
    deps.subscriptions.ofUser(realmId, actor.userId),
    deps.userGroups.get(ctx),
  ]);
  const channels = all.filter((ch) => includeArchived || !ch.isArchived);
  channels.sort((a, b) => a.name.localeCompare(b.name));
  const subOf = new Map(subs.map((s) => [s.streamId, s]));
  const subscribers = withSubscribers
    ? await deps.subscriptions.subscribersByChannel(
        realmId,
        channels.map((c) => c.streamId),
      )
    : undefined;
  const listOf = (streamId: number) => subscribers?.get(streamId);
  return {
    subscriptions: channels
      .filter((ch) => subOf.get(ch.streamId)?.active)
      .map((ch) => subscriptionView(ch, subOf.get(ch.streamId)!, listOf(ch.streamId))),
    unsubscribed: channels
      .filter(
        (ch) => subOf.has(ch.streamId) && !subOf.get(ch.streamId)!.active && canSeeMetadata(actor, ch, false, groups),
      )
      .map((ch) => subscriptionView(ch, subOf.get(ch.streamId)!, listOf(ch.streamId))),
    never_subscribed: channels
      .filter((ch) => !subOf.has(ch.streamId) && canSeeMetadata(actor, ch, false, groups))
      .map((ch) => neverSubscribedView(ch, listOf(ch.streamId))),
  };
}
