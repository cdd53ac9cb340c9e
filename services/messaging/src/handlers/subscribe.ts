import {
  badRequest,
  isGuest,
  messaging,
  requireUser,
  type Handler,
  type HandlerContext,
  type ParamsOf,
  type ReplyOf,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { canAddSubscribers, canReadContent } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import { checkChannelName, checkChannelOptions, insertChannel } from "../channels/create-channels";
import { principalsToUsers } from "../subscriptions/principals";
import { subscribeUsers, type SubscribedPair } from "../subscriptions/subscribe-users";
import { sendMessagesForNewSubscribers } from "../subscriptions/subscription-notices";
import type { InternalStreamSendDeps } from "../messages/internal-send";

const byUser = (pairs: SubscribedPair[]): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const { userId, channel } of pairs) (out[String(userId)] ??= []).push(channel.name);
  return out;
};

/** Zulip's check_color for a subscription's `color`. */
const HEX_COLOR = /^#[a-fA-F0-9]{3,6}$/;

/**
 * POST /users/me/subscriptions (Zulip's add_subscriptions_backend): subscribes
 * the user, or `principals`, to channels, creating missing ones. Channels the
 * actor may not read are refused (or listed as `unauthorized` when
 * authorization_errors_fatal is false); subscribing others needs the
 * permission above on every existing channel (channels it creates need none).
 * Everything is checked before anything is written.
 */
export const subscribeHandler =
  (deps: SubscribeDeps): Handler<typeof messaging.subscribe> =>
  (p, ctx) =>
    addSubscriptions(deps, p, ctx);

interface SubscribeDeps extends InternalStreamSendDeps {
  userGroups: UserGroupMemberships;
}

/** What POST /users/me/subscriptions does (PATCH /users/me/subscriptions does it too). */
export async function addSubscriptions(
  deps: SubscribeDeps,
  p: ParamsOf<typeof messaging.subscribe>,
  ctx: HandlerContext,
): Promise<ReplyOf<typeof messaging.subscribe>> {
  const { realm, actor } = requireUser(ctx);
  const realmId = realm.id;
  // Zulip's require_non_guest_user
  if (isGuest(actor)) throw badRequest("Not allowed for guest users");
  const settings = await deps.settings.get(ctx);
  for (const spec of p.subscriptions) {
    if (spec.color !== undefined && !HEX_COLOR.test(spec.color)) {
      throw badRequest("add.color is not a valid hex color code");
    }
  }

  const users = await principalsToUsers(deps, ctx, realmId, actor, p.principals);
  const subscribingOthers = users.some((u) => u.user_id !== actor.userId);

  const existing: ChannelDoc[] = [];
  const toCreate: Array<{ name: string; description?: string }> = [];
  const colorOf = new Map<string, string>();
  for (const spec of p.subscriptions) {
    const name = checkChannelName(spec.name, settings);
    if (spec.color !== undefined) colorOf.set(name.toLowerCase(), spec.color);
    const ch = await deps.channels.byName(realmId, name);
    if (ch) {
      if (!existing.some((c) => c.streamId === ch.streamId)) existing.push(ch);
    } else if (!toCreate.some((c) => c.name.toLowerCase() === name.toLowerCase())) {
      toCreate.push({ ...spec, name });
    }
  }
  if (toCreate.length) await checkChannelOptions(deps, ctx, actor, p);

  const [mine, groups] = await Promise.all([
    deps.subscriptions.subscribedStreamIds(realmId, actor.userId),
    deps.userGroups.get(ctx),
  ]);
  const unauthorized = existing.filter((ch) => !canReadContent(actor, ch, mine.has(ch.streamId), groups));
  if (unauthorized.length && p.authorization_errors_fatal) {
    throw badRequest(`Unable to access channel (${unauthorized[0]!.name}).`);
  }
  const authorized = existing.filter((ch) => !unauthorized.includes(ch));
  if (subscribingOthers && authorized.some((ch) => !canAddSubscribers(actor, ch, settings, groups))) {
    throw badRequest("Insufficient permission");
  }

  const created: ChannelDoc[] = [];
  for (const spec of toCreate) {
    // A channel created meanwhile by someone else is simply joined.
    const ch = await insertChannel(deps, realmId, actor, settings, spec, p);
    if (ch) created.push(ch);
    else authorized.push((await deps.channels.byName(realmId, spec.name))!);
  }

  const channels = [...authorized, ...created];
  const colors = new Map(
    channels.flatMap((ch) => (colorOf.has(ch.nameKey) ? [[ch.streamId, colorOf.get(ch.nameKey)!] as const] : [])),
  );
  const { added, already } = await subscribeUsers(
    deps,
    ctx,
    realmId,
    channels,
    users.map((u) => u.user_id),
    created,
    colors,
  );
  const messagesSent = await sendMessagesForNewSubscribers(deps, ctx, added, created, {
    announce: p.announce,
    sendNewSubscriptionMessages: p.send_new_subscription_messages,
  });
  return {
    subscribed: byUser(added),
    already_subscribed: byUser(already),
    ...(p.authorization_errors_fatal ? {} : { unauthorized: unauthorized.map((c) => c.name) }),
    ...(p.send_new_subscription_messages ? { new_subscription_messages_sent: messagesSent } : {}),
  };
}
