import {
  Role,
  ZulipError,
  badRequest,
  isAdmin,
  isGuest,
  SYSTEM_GROUPS,
  type Actor,
  type GroupSettingValue,
} from "@teamchat/shared";
import type { Deps } from "../deps";
import type { ChannelDoc } from "./channel.schema";
import { groupSetting } from "./channel-view";

type Member = Pick<Actor, "userId" | "role">;

/**
 * Zulip's groups_granting_content_access: members of a private channel's
 * can_add_subscribers_group or can_subscribe_group may read it (and join it)
 * unsubscribed. Guests never, as neither setting allows the everyone group.
 */
const inGroupGrantingContentAccess = (user: Member, ch: ChannelDoc): boolean =>
  !isGuest(user) &&
  (groupIncludes(groupSetting(ch, "can_add_subscribers_group"), user) ||
    groupIncludes(groupSetting(ch, "can_subscribe_group"), user));

/**
 * Zulip's user_has_metadata_access: who may see that a channel exists, its
 * settings and its subscribers. Besides content access, administrators and the
 * channel's administrators see private channels.
 */
export const canSeeMetadata = (user: Member, ch: ChannelDoc, subscribed: boolean): boolean =>
  canReadContent(user, ch, subscribed) ||
  (!isGuest(user) && (isAdmin(user) || groupIncludes(groupSetting(ch, "can_administer_channel_group"), user)));

/** Zulip's user_has_content_access: who may read its messages. */
export const canReadContent = (user: Member, ch: ChannelDoc, subscribed: boolean): boolean =>
  subscribed || ch.isWebPublic || (!ch.inviteOnly && !isGuest(user)) || inGroupGrantingContentAccess(user, ch);

/** Whether the user may read the channel's whole history, not only what they received. */
export const canReadHistory = (actor: Actor, ch: ChannelDoc, subscribed: boolean): boolean =>
  canReadContent(actor, ch, subscribed) && (!ch.inviteOnly || ch.historyPublicToSubscribers);

/**
 * Zulip's can_administer_accessible_channel: organization administrators, and
 * members of the channel's can_administer_channel_group (never guests).
 */
export const canAdministerChannel = (actor: Member, ch: ChannelDoc): boolean =>
  isAdmin(actor) || (!isGuest(actor) && groupIncludes(groupSetting(ch, "can_administer_channel_group"), actor));

/** Role-based system groups (fixed ids, see SYSTEM_GROUPS): does the role belong? */
const SYSTEM_GROUP_MEMBERSHIP: Record<number, (role: number) => boolean> = {
  [SYSTEM_GROUPS["role:owners"]]: (r) => r <= Role.OWNER,
  [SYSTEM_GROUPS["role:administrators"]]: (r) => r <= Role.ADMINISTRATOR,
  [SYSTEM_GROUPS["role:moderators"]]: (r) => r <= Role.MODERATOR,
  [SYSTEM_GROUPS["role:fullmembers"]]: (r) => r <= Role.MEMBER,
  [SYSTEM_GROUPS["role:members"]]: (r) => r <= Role.MEMBER,
  [SYSTEM_GROUPS["role:everyone"]]: () => true,
  [SYSTEM_GROUPS["role:internet"]]: () => true,
  [SYSTEM_GROUPS["role:nobody"]]: () => false,
};

/**
 * Whether Zulip's group-setting value (a group id, or direct members and
 * subgroups) includes the user. System groups go by role; user-created groups
 * (identity's) are not known here and include nobody.
 */
export function groupIncludes(value: GroupSettingValue, user: Member): boolean {
  const inGroup = (id: number) => SYSTEM_GROUP_MEMBERSHIP[id]?.(user.role) ?? false;
  if (typeof value === "number") return inGroup(value);
  return value.direct_members.includes(user.userId) || value.direct_subgroups.some(inGroup);
}

/**
 * Zulip's access_stream_by_id: "Invalid channel ID" for missing, hidden and
 * archived channels alike (require_active_channel). "metadata" is Zulip's
 * require_content_access=False.
 */
export async function accessChannelById(
  deps: Deps<"channels" | "subscriptions">,
  realmId: number,
  actor: Actor,
  streamId: number,
  need: "metadata" | "content" = "metadata",
): Promise<{ channel: ChannelDoc; subscribed: boolean }> {
  const channel = await deps.channels.byId(realmId, streamId);
  const subscribed = channel ? await deps.subscriptions.isSubscribed(realmId, actor.userId, streamId) : false;
  const allowed = need === "metadata" ? canSeeMetadata : canReadContent;
  if (!channel || channel.isArchived || !allowed(actor, channel, subscribed)) throw badRequest("Invalid channel ID");
  return { channel, subscribed };
}

/** Zulip's access_stream_by_name: the same rules, refused as "Invalid channel name '...'". */
export async function accessChannelByName(
  deps: Deps<"channels" | "subscriptions">,
  realmId: number,
  actor: Actor,
  name: string,
): Promise<ChannelDoc> {
  const channel = await deps.channels.byName(realmId, name);
  const subscribed = channel ? await deps.subscriptions.isSubscribed(realmId, actor.userId, channel.streamId) : false;
  if (!channel || channel.isArchived || !canReadContent(actor, channel, subscribed)) {
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
  deps: Deps<"channels" | "subscriptions">,
  realmId: number,
  actor: Actor,
  streamId: number,
): Promise<{ channel: ChannelDoc; subscribed: boolean }> {
  const channel = await deps.channels.byId(realmId, streamId);
  if (!channel) throw badRequest("Invalid channel ID");
  const subscribed = await deps.subscriptions.isSubscribed(realmId, actor.userId, streamId);
  if (canAdministerChannel(actor, channel)) return { channel, subscribed };
  if (canReadContent(actor, channel, subscribed)) {
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

/** Zulip's access_stream_for_send_message, for a channel given by id or name. */
export async function accessChannelForSend(
  deps: Deps<"channels" | "subscriptions">,
  realmId: number,
  actor: Actor,
  target: string | number,
): Promise<ChannelDoc> {
  const channel =
    typeof target === "number"
      ? await deps.channels.byId(realmId, target)
      : await deps.channels.byName(realmId, target);
  const subscribed = channel ? await deps.subscriptions.isSubscribed(realmId, actor.userId, channel.streamId) : false;
  if (!channel) throw typeof target === "number" ? channelNotFoundById(target) : channelNotFoundByName(target);
  if (!groupIncludes(groupSetting(channel, "can_send_message_group"), actor)) {
    throw badRequest("You do not have permission to post in this channel.");
  }
  // Archived channels take no messages (Zulip's access_stream_for_send_message).
  if (channel.isArchived || !canReadContent(actor, channel, subscribed)) {
    throw badRequest(`Not authorized to send to channel '${channel.name}'`);
  }
  return channel;
}
