import type { Actor } from "@teamchat/shared";
import { canReadHistory } from "../channels/channel-access";
import type { Messaging } from "../context";
import type { MessageDoc } from "./message.schema";

/** Zulip's has_message_access: received it, or may read the channel's whole history. */
export async function canSeeMessage(m: Messaging, actor: Actor, msg: MessageDoc): Promise<boolean> {
  if (msg.receivers.includes(actor.userId)) return true;
  if (msg.streamId === null) return false;
  const [channel, subscribed] = await Promise.all([
    m.channels.byId(actor.realmId, msg.streamId),
    m.subscriptions.isSubscribed(actor.realmId, actor.userId, msg.streamId),
  ]);
  return !!channel && canReadHistory(actor, channel, subscribed);
}
