import type { Actor } from "@teamchat/shared";
import { canReadHistory } from "../channels/channel-access";
import type { Deps } from "../deps";
import type { MessageDoc } from "./message.schema";

/** Zulip's has_message_access: received it, or may read the channel's whole history. */
export async function canSeeMessage(
  deps: Deps<"channels" | "subscriptions">,
  realmId: number,
  actor: Actor,
  msg: MessageDoc,
): Promise<boolean> {
  if (msg.receivers.includes(actor.userId)) return true;
  if (msg.streamId === null) return false;
  const [channel, subscribed] = await Promise.all([
    deps.channels.byId(realmId, msg.streamId),
    deps.subscriptions.isSubscribed(realmId, actor.userId, msg.streamId),
  ]);
  return !!channel && canReadHistory(actor, channel, subscribed);
}
