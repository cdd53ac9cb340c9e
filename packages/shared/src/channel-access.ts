import { isAdmin, isGuest } from "./actor";
import type { GroupSettingValue } from "./contracts/common";
import type { RealmSettings } from "./contracts/realm-config/realms";
import type { ChannelGroupSetting } from "./domain/groups";
import type { GroupMember, GroupMembership } from "./user-groups";

/**
 * What Zulip's channel access rules read of a channel: messaging's channels
 * and identity's copy of them (ChannelCopy) both answer it, so the rules are
 * written once.
 */
export interface ChannelAccessFacts {
  inviteOnly: boolean;
  isWebPublic: boolean;
  /** the group setting's value, the channel's default when it was not set */
  groupSetting(name: ChannelGroupSetting): GroupSettingValue;
}

/**
 * Zulip's groups_granting_content_access: members of a private channel's
 * can_add_subscribers_group or can_subscribe_group may read it (and join it)
 * unsubscribed. Guests never, as neither setting allows the everyone group.
 */
const inGroupGrantingContentAccess = (user: GroupMember, ch: ChannelAccessFacts, groups: GroupMembership): boolean =>
  !isGuest(user) &&
  (groups.includes(ch.groupSetting("can_add_subscribers_group"), user) ||
    groups.includes(ch.groupSetting("can_subscribe_group"), user));

/** Zulip's user_has_content_access: who may read its messages. */
export const canReadChannelContent = (
  user: GroupMember,
  ch: ChannelAccessFacts,
  subscribed: boolean,
  groups: GroupMembership,
): boolean =>
  subscribed || ch.isWebPublic || (!ch.inviteOnly && !isGuest(user)) || inGroupGrantingContentAccess(user, ch, groups);

/**
 * Zulip's can_administer_accessible_channel: organization administrators, and
 * members of the channel's can_administer_channel_group (never guests).
 */
export const canAdministerAccessibleChannel = (
  actor: GroupMember,
  ch: ChannelAccessFacts,
  groups: GroupMembership,
): boolean =>
  isAdmin(actor) || (!isGuest(actor) && groups.includes(ch.groupSetting("can_administer_channel_group"), actor));

/**
 * Zulip's get_streams_to_which_user_cannot_add_subscribers, for channels the
 * actor may read: the organization's can_add_subscribers_group may add to all
 * of them; otherwise those who may administer the channel, or its
 * can_add_subscribers_group, may. Never guests.
 */
export const canAddChannelSubscribers = (
  actor: GroupMember,
  ch: ChannelAccessFacts,
  settings: Pick<RealmSettings, "can_add_subscribers_group">,
  groups: GroupMembership,
): boolean =>
  !isGuest(actor) &&
  (groups.includes(settings.can_add_subscribers_group, actor) ||
    canAdministerAccessibleChannel(actor, ch, groups) ||
    groups.includes(ch.groupSetting("can_add_subscribers_group"), actor));
