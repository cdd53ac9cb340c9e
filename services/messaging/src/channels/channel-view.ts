import { SYSTEM_GROUPS, type ChannelGroupSetting, type GroupSettingValue, type messaging } from "@teamchat/shared";
import type { SubscriptionDoc } from "../subscriptions/subscription.schema";
import type { ChannelDoc } from "./channel.schema";

/** Zulip's Stream.stream_permission_group_settings defaults, for settings not given at creation, but the creator's one. */
const SYSTEM_GROUP_DEFAULTS: Record<Exclude<ChannelGroupSetting, "can_administer_channel_group">, GroupSettingValue> = {
  can_add_subscribers_group: SYSTEM_GROUPS["role:nobody"],
  can_delete_any_message_group: SYSTEM_GROUPS["role:nobody"],
  can_delete_own_message_group: SYSTEM_GROUPS["role:nobody"],
  can_move_messages_out_of_channel_group: SYSTEM_GROUPS["role:nobody"],
  can_move_messages_within_channel_group: SYSTEM_GROUPS["role:nobody"],
  can_remove_subscribers_group: SYSTEM_GROUPS["role:administrators"],
  can_resolve_topics_group: SYSTEM_GROUPS["role:nobody"],
  can_send_message_group: SYSTEM_GROUPS["role:everyone"],
  can_subscribe_group: SYSTEM_GROUPS["role:nobody"],
};

/**
 * A channel's group setting: as given at creation, else Zulip's default (its
 * creator administers it). Looked up one name at a time: register builds
 * every subscription's channel with five of them.
 */
export const groupSetting = (ch: ChannelDoc, name: ChannelGroupSetting): GroupSettingValue =>
  ch.groupSettings[name] ??
  (name === "can_administer_channel_group"
    ? { direct_members: ch.creatorId ? [ch.creatorId] : [], direct_subgroups: [] }
    : SYSTEM_GROUP_DEFAULTS[name]);

/** Zulip's BasicChannel (GET /streams, stream events). */
export function channelView(ch: ChannelDoc): messaging.Channel {
  return {
    stream_id: ch.streamId,
    name: ch.name,
    is_archived: ch.isArchived,
    description: ch.description,
    rendered_description: ch.renderedDescription,
    date_created: ch.dateCreated,
    creator_id: ch.creatorId,
    invite_only: ch.inviteOnly,
    is_web_public: ch.isWebPublic,
    stream_post_policy: 1,
    message_retention_days: ch.messageRetentionDays,
    history_public_to_subscribers: ch.historyPublicToSubscribers,
    topics_policy: ch.topicsPolicy,
    first_message_id: ch.firstMessageId,
    is_recently_active: true,
    is_announcement_only: false,
    stream_weekly_traffic: null,
    // the group settings zulip.yaml's channel objects carry
    can_add_subscribers_group: groupSetting(ch, "can_add_subscribers_group"),
    can_remove_subscribers_group: groupSetting(ch, "can_remove_subscribers_group"),
    can_administer_channel_group: groupSetting(ch, "can_administer_channel_group"),
    can_send_message_group: groupSetting(ch, "can_send_message_group"),
    can_subscribe_group: groupSetting(ch, "can_subscribe_group"),
  };
}

/** Zulip's Subscription object: the channel plus the user's personal settings. */
export function subscriptionView(ch: ChannelDoc, sub: SubscriptionDoc, subscribers?: number[]): messaging.Subscription {
  // channelView's fresh object completed in place: spread into a literal with these fields, V8 took its
  // slow path, a large share of messaging's CPU in a register (docs/adr/0031-hot-path-views.md)
  return Object.assign(
    channelView(ch),
    {
      color: sub.color,
      is_muted: sub.isMuted,
      in_home_view: !sub.isMuted,
      pin_to_top: sub.pinToTop,
      // rows written before these settings existed lack them: the user's default
      desktop_notifications: sub.desktopNotifications ?? null,
      email_notifications: sub.emailNotifications ?? null,
      wildcard_mentions_notify: sub.wildcardMentionsNotify ?? null,
      push_notifications: sub.pushNotifications ?? null,
      audible_notifications: sub.audibleNotifications ?? null,
    },
    subscribers ? { subscribers } : {},
  );
}

/** A channel the user never subscribed to (register's never_subscribed), with its subscribers when asked. */
export const neverSubscribedView = (ch: ChannelDoc, subscribers?: number[]): messaging.NeverSubscribed =>
  Object.assign(channelView(ch), subscribers ? { subscribers } : {});
