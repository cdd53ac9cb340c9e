import type { NatsConnection } from "@nats-io/transport-node";
import {
  backfillCopiesOnce,
  messagingEvents,
  type Connection,
  type EventPublisher,
  type Logger,
} from "@teamchat/shared";
import { channelFactsOf } from "./channels/channel-directory";
import type { ChannelRepository } from "./channels/channel.repository";
import type { SubscriptionRepository } from "./subscriptions/subscription.repository";

/**
 * Gives the copies other services keep of channels (ChannelCopy) and of
 * subscriptions (identity's) what was made before those copies existed: one
 * channel_facts and one subscription_facts event per organization, once per
 * deployment.
 */
export async function backfillCopies(deps: {
  nc: NatsConnection;
  db: Connection;
  channels: ChannelRepository;
  subscriptions: SubscriptionRepository;
  events: EventPublisher<"messaging">;
  log: Logger;
}): Promise<void> {
  await backfillCopiesOnce(
    deps,
    messagingEvents.channelFacts.subject,
    () => deps.channels.inEveryRealm(),
    (realmId, channels, asOf) =>
      deps.events.publishAndWait(messagingEvents.channelFacts, {
        realmId,
        asOf,
        channels: channels.map(channelFactsOf),
      }),
  );
  await backfillCopiesOnce(
    deps,
    messagingEvents.subscriptionFacts.subject,
    () => deps.subscriptions.activeInEveryRealm(),
    (realmId, rows, asOf) =>
      deps.events.publishAndWait(messagingEvents.subscriptionFacts, {
        realmId,
        asOf,
        subscribed: true,
        pairs: rows.map((r) => ({ user_id: r.userId, stream_id: r.streamId })),
      }),
  );
}
