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

/** Zulip's has_message_access: received it, or may read the channel's whole history. */
export async function canSeeMessage(
  deps: { channels: ChannelDirectory; subscriptions: SubscriptionDirectory; userGroups: UserGroupMemberships },
  realmId: number,
  actor: GroupMember,
  msg: Pick<MessageDoc, "receivers" | "streamId">,
  ctx: CallContext,
): Promise<boolean> {
  if (msg.receivers.includes(actor.userId)) return true;
  if (msg.streamId === null) return false;
  const [channel, subscribed, groups] = await Promise.all([
    deps.channels.byId(realmId, msg.streamId),
    deps.subscriptions.isSubscribed(realmId, actor.userId, msg.streamId),
    deps.userGroups.get(ctx),
  ]);
  return !!channel && canReadHistory(actor, channel, subscribed, groups);
}

/** Zulip's access_message: the message, or "Invalid message(s)" when it does not exist or the actor may not see it. */
export async function accessMessage(
  deps: {
    messages: MessageRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
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
