import {
  badRequest,
  type Actor,
  type CallContext,
  type GroupMember,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { canReadHistory } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { MessageRepository } from "./message.repository";
import type { MessageDoc } from "./message.schema";
import type { ReceivedMessage, ReceiverCache } from "../user-messages/receiver-cache";

/** Zulip's has_message_access: received it, or may read the channel's whole history. */
export async function canSeeMessage(
  deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
  },
  realmId: number,
  actor: GroupMember,
  msg: ReceivedMessage,
  ctx: CallContext,
): Promise<boolean> {
  if (msg.streamId === null) return msg.receivers.includes(actor.userId);
  const [channel, subscribed, groups] = await Promise.all([
    deps.channels.byId(realmId, msg.streamId),
    deps.subscriptions.isSubscribed(realmId, actor.userId, msg.streamId),
    deps.userGroups.get(ctx),
  ]);
  if (channel && canReadHistory(actor, channel, subscribed, groups)) return true;
  return deps.receivers.received(realmId, msg, actor.userId);
}

/** Zulip's access_message: the message, or "Invalid message(s)" when it does not exist or the actor may not see it. */
export async function accessMessage(
  deps: {
    messages: MessageRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
  },
  realmId: number,
  actor: Actor,
  messageId: number,
  ctx: CallContext,
): Promise<MessageDoc> {
  const msg = await deps.messages.byId(realmId, messageId);
  if (!msg || !(await canSeeMessage(deps, realmId, actor, msg, ctx))) throw badRequest("Invalid message(s)");
  return msg;
}
