import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";

/** Sorted, without repeats. */
export const idSet = (ids: Iterable<number>): number[] => [...new Set(ids)].sort((a, b) => a - b);

/**
 * Who hears of a change to messages of one channel or conversation (Zulip's
 * event_recipient_ids_for_action_on_messages), given who has rows of them: a
 * direct message's participants; in a channel with protected history, its
 * subscribers who have rows; in a private channel with shared history, its
 * subscribers; in a public channel, its subscribers and whoever has a row.
 * Historical rows other than those the caller names are not found: rows are
 * not indexed by message.
 */
export async function messageAudience(
  deps: { channels: ChannelDirectory; subscriptions: SubscriptionDirectory },
  realmId: number,
  streamId: number | null,
  withRows: number[],
): Promise<number[]> {
  if (streamId === null) return idSet(withRows);
  const [channel, subscribers] = await Promise.all([
    deps.channels.byId(realmId, streamId),
    deps.subscriptions.subscriberIds(realmId, streamId),
  ]);
  if (!channel) return [];
  if (channel.inviteOnly && !channel.historyPublicToSubscribers) {
    const subscribed = new Set(subscribers);
    return idSet(withRows.filter((id) => subscribed.has(id)));
  }
  if (channel.inviteOnly) return idSet(subscribers);
  return idSet([...subscribers, ...withRows]);
}
