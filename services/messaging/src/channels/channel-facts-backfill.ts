import type { NatsConnection } from "@nats-io/transport-node";
import {
  backfillCopiesOnce,
  messagingEvents,
  type Connection,
  type EventPublisher,
  type Logger,
} from "@teamchat/shared";
import { channelFactsOf } from "./channel-directory";
import type { ChannelRepository } from "./channel.repository";

/**
 * Gives the copies other services keep of channels (ChannelCopy) the channels
 * made before those copies existed: one channel_facts event per organization,
 * once per deployment.
 */
export function backfillChannelCopies(deps: {
  nc: NatsConnection;
  db: Connection;
  channels: ChannelRepository;
  events: EventPublisher<"messaging">;
  log: Logger;
}): Promise<void> {
  return backfillCopiesOnce(
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
}
