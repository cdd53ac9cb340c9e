import {
  ZulipError,
  badRequest,
  canAddChannelSubscribers,
  canAdministerAccessibleChannel,
  canReadChannelContent,
  isAdmin,
  isGuest,
  type Actor,
  type CallContext,
  type ChannelAccessFacts,
  type GroupMember,
  type GroupMembership,
  type realmConfig,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { ChannelDirectory } from "./channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ChannelDoc } from "./channel.schema";
import { groupSetting } from "./channel-view";

/** A channel as the shared access rules read it (identity applies them to its copy of channels). */
const accessFacts = (ch: ChannelDoc): ChannelAccessFacts => ({
  inviteOnly: ch.inviteOnly,
  isWebPublic: ch.isWebPublic,
  groupSetting: (name) => groupSetting(ch, name),
});

/**
 * Zulip's user_has_metadata_access: who may see that a channel exists, its
 * settings and its subscribers. Besides content access, administrators and the
 * channel's administrators see private channels.
 */
export const canSeeMetadata = (
  user: GroupMember,
  ch: ChannelDoc,
  subscribed: boolean,
  groups: GroupMembership,
): boolean =>
  canReadContent(user, ch, subscribed, groups) ||
  (!isGuest(user) && (isAdmin(user) || groups.includes(groupSetting(ch, "can_administer_channel_group"), user)));

/** Zulip's user_has_content_access: who may read its messages. */
export const canReadContent = (
  user: GroupMember,
  ch: ChannelDoc,
  subscribed: boolean,
  groups: GroupMembership,
): boolean => canReadChannelContent(user, accessFacts(ch), subscribed, groups);

/** Whether the user may read the channel's whole history, not only what they received. */
export const canReadHistory = (
  actor: GroupMember,
  ch: ChannelDoc,
  subscribed: boolean,
  groups: GroupMembership,
): boolean => canReadContent(actor, ch, subscribed, groups) && (!ch.inviteOnly || ch.historyPublicToSubscribers);

/** Zulip's can_administer_accessible_channel. */
export const canAdministerChannel = (actor: GroupMember, ch: ChannelDoc, groups: GroupMembership): boolean =>
  canAdministerAccessibleChannel(actor, accessFacts(ch), groups);

/** Zulip's get_streams_to_which_user_cannot_add_subscribers, for channels the actor may read. */
export const canAddSubscribers = (
  actor: Actor,
  ch: ChannelDoc,
  settings: realmConfig.RealmSettings,
  groups: GroupMembership,
): boolean => canAddChannelSubscribers(actor, accessFacts(ch), settings, groups);

/** What deciding a user's access to a channel reads: the channel, their subscription, the groups of its settings. */
interface ChannelAccessDeps {
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
}

/**
 * Zulip's access_stream_by_id: "Invalid channel ID" for missing, hidden and
 * archived channels alike (require_active_channel). "metadata" is Zulip's
 * require_content_access=False.
 */
export async function accessChannelById(
  deps: ChannelAccessDeps,
  realmId: number,
  actor: Actor,
  streamId: number,
  ctx: CallContext,
  need: "metadata" | "content" = "metadata",
): Promise<{ channel: ChannelDoc; subscribed: boolean }> {
  const [channel, groups] = await Promise.all([deps.channels.byId(realmId, streamId), deps.userGroups.get(ctx)]);
  const subscribed = channel ? await deps.subscriptions.isSubscribed(realmId, actor.userId, streamId) : false;
  const allowed = need === "metadata" ? canSeeMetadata : canReadContent;
  if (!channel || channel.isArchived || !allowed(actor, channel, subscribed, groups)) {
    throw badRequest("Invalid channel ID");
  }
  return { channel, subscribed };
}

/** Zulip's access_stream_by_name: the same rules, refused as "Invalid channel name '...'". */
export async function accessChannelByName(
  deps: ChannelAccessDeps,
  realmId: number,
  actor: Actor,
  name: string,
  ctx: CallContext,
): Promise<ChannelDoc> {
  const [channel, groups] = await Promise.all([deps.channels.byName(realmId, name), deps.userGroups.get(ctx)]);
  const subscribed = channel ? await deps.subscriptions.isSubscribed(realmId, actor.userId, channel.streamId) : false;
  if (!channel || channel.isArchived || !canReadContent(actor, channel, subscribed, groups)) {
    throw badRequest(`Invalid channel name '${name}'`);
  }
  return channel;
}

/**
 * Zulip's access_stream_for_delete_or_update_requiring_metadata_access (PATCH
 * and DELETE /streams/{stream_id}): channel administrators, archived channels
 * included. Others learn that they may not administer it only when they can
 * read it; otherwise the channel might as well not exist.
 */
export async function accessChannelForUpdate(
  deps: ChannelAccessDeps,
  realmId: number,
  actor: Actor,
  streamId: number,
  ctx: CallContext,
): Promise<{ channel: ChannelDoc; subscribed: boolean; groups: GroupMembership }> {
  const [channel, groups] = await Promise.all([deps.channels.byId(realmId, streamId), deps.userGroups.get(ctx)]);
  if (!channel) throw badRequest("Invalid channel ID");
  const subscribed = await deps.subscriptions.isSubscribed(realmId, actor.userId, streamId);
  if (canAdministerChannel(actor, channel, groups)) return { channel, subscribed, groups };
  if (canReadContent(actor, channel, subscribed, groups)) {
    throw badRequest("You do not have permission to administer this channel.");
  }
  throw badRequest("Invalid channel ID");
}

export const channelNotFoundByName = (name: string): ZulipError =>
  new ZulipError("STREAM_DOES_NOT_EXIST", `Channel '${name}' does not exist`, 400, { stream: name });

export const channelNotFoundById = (streamId: number): ZulipError =>
  new ZulipError("STREAM_DOES_NOT_EXIST", `Channel with ID '${streamId}' does not exist`, 400, {
    stream_id: streamId,
  });

/**
 * Zulip's access_stream_for_send_message, for a channel given by id or name; by
 * id, a channel the sender may not see is answered as a missing one.
 */
export async function accessChannelForSend(
  deps: ChannelAccessDeps,
  realmId: number,
  actor: Actor,
  target: string | number,
  ctx: CallContext,
): Promise<ChannelDoc> {
  const groups = await deps.userGroups.get(ctx);
  const channel =
    typeof target === "number"
      ? await deps.channels.byId(realmId, target)
      : await deps.channels.byName(realmId, target);
  const subscribed = channel ? await deps.subscriptions.isSubscribed(realmId, actor.userId, channel.streamId) : false;
  if (!channel) throw typeof target === "number" ? channelNotFoundById(target) : channelNotFoundByName(target);
  // Zulip's refusals below name the channel; given only an id, a sender who may not see the
  // channel would learn a private channel's name by trying ids: it does not exist for them.
  if (typeof target === "number" && !canSeeMetadata(actor, channel, subscribed, groups)) {
    throw channelNotFoundById(target);
  }
  if (!groups.includes(groupSetting(channel, "can_send_message_group"), actor)) {
    throw badRequest("You do not have permission to post in this channel.");
  }
  // Archived channels take no messages (Zulip's access_stream_for_send_message).
  if (channel.isArchived || !canReadContent(actor, channel, subscribed, groups)) {
    throw badRequest(`Not authorized to send to channel '${channel.name}'`);
  }
  return channel;
}
