import {
  badRequest,
  messaging,
  messagingEvents,
  requireUser,
  type Handler,
  type HandlerContext,
  type ParamsOf,
  type UserGroupMemberships,
  type EventPublisher,
} from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { SubscriptionSettings } from "../subscriptions/subscription.schema";

type Change = ParamsOf<typeof messaging.updateSubscriptionProperties>["subscription_data"][number];

/** Where each boolean property is stored (in_home_view is is_muted inverted). */
const STORED_AS: Record<Exclude<messaging.SubscriptionProperty, "color">, keyof SubscriptionSettings> = {
  is_muted: "isMuted",
  in_home_view: "isMuted",
  pin_to_top: "pinToTop",
  desktop_notifications: "desktopNotifications",
  audible_notifications: "audibleNotifications",
  push_notifications: "pushNotifications",
  email_notifications: "emailNotifications",
  wildcard_mentions_notify: "wildcardMentionsNotify",
};

/** Zulip's check_color. */
const HEX_COLOR = /^#[a-fA-F0-9]{3,6}$/;

/** Zulip's SubscriptionPropertyChangeRequest validation, with its messages. */
function checkChange({ property, value }: Change): void {
  if (property === "color") {
    if (typeof value !== "string" || !HEX_COLOR.test(value)) throw badRequest("color is not a valid hex color code");
  } else if (property in STORED_AS) {
    if (typeof value !== "boolean") throw badRequest(`${property} is not a boolean`);
  } else {
    throw badRequest(`Unknown subscription property: ${property}`);
  }
}

/**
 * POST /users/me/subscriptions/properties (Zulip's
 * update_subscription_properties_backend): every change is checked first, then
 * applied in order, each to a channel the user may read and is subscribed to.
 * Each change gives the user one `subscription` update event per property;
 * is_muted and in_home_view give both (in_home_view first), as Zulip's
 * do_change_subscription_property does since feature level 139.
 */
export const updateSubscriptionPropertiesHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.updateSubscriptionProperties> =>
  async ({ subscription_data }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    for (const change of subscription_data) checkChange(change);
    for (const change of subscription_data) {
      const { subscribed } = await accessChannelById(deps, realm.id, actor, change.stream_id, ctx, "content");
      if (!subscribed) throw badRequest(`Not subscribed to channel ID ${change.stream_id}`);
      await applyChange(deps, ctx, realm.id, actor.userId, change);
    }
    return {};
  };

async function applyChange(
  deps: { subscriptions: SubscriptionDirectory; events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
  { stream_id, property, value }: Change,
): Promise<void> {
  const events: Array<{ property: string; value: string | boolean }> = [];
  if (property === "color") {
    await deps.subscriptions.setSettings(realmId, userId, stream_id, { color: value as string });
    events.push({ property, value });
  } else if (property === "is_muted" || property === "in_home_view") {
    const isMuted = property === "is_muted" ? value === true : value === false;
    await deps.subscriptions.setSettings(realmId, userId, stream_id, { isMuted });
    events.push({ property: "in_home_view", value: !isMuted }, { property: "is_muted", value: isMuted });
  } else {
    const stored = STORED_AS[property as keyof typeof STORED_AS];
    await deps.subscriptions.setSettings(realmId, userId, stream_id, { [stored]: value });
    events.push({ property, value });
  }
  for (const e of events) {
    deps.events.publish(
      messagingEvents.subscriptionChanged,
      { realmId, userIds: [userId], event: { type: "subscription", op: "update", stream_id, ...e } },
      ctx.requestId,
    );
  }
}
