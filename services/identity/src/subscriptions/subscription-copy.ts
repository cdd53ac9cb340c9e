import type { NatsConnection } from "@nats-io/transport-node";
import {
  DURABLE_CONSUMERS,
  EventFedCopy,
  messagingEvents,
  type Connection,
  type Logger,
  type PayloadOf,
} from "@teamchat/shared";

type SubscriptionFacts = PayloadOf<typeof messagingEvents.subscriptionFacts>;

const scopeOf = (userId: number) => `user:${userId}`;

/**
 * identity's copy of which channels each user is subscribed to (EventFedCopy),
 * fed by messaging's subscription_facts events, so that checking an
 * invitation's channels (Zulip's access_streams_for_invite) never asks
 * messaging, which sits above identity.
 */
export class SubscriptionCopy {
  private constructor(
    private readonly copy: EventFedCopy,
    private readonly consumer: { stop(): Promise<void> },
  ) {}

  static async start(nc: NatsConnection, db: Connection, log: Logger): Promise<SubscriptionCopy> {
    const copy = new EventFedCopy(nc, db, "subscription_copy");
    const apply = async ({ realmId, subscribed, pairs, asOf }: SubscriptionFacts, seq: number) => {
      const byUser = new Map<number, Record<string, boolean>>();
      for (const { user_id, stream_id } of pairs) {
        let channels = byUser.get(user_id);
        if (!channels) byUser.set(user_id, (channels = {}));
        channels[stream_id] = subscribed;
      }
      for (const [userId, channels] of byUser) await copy.set(realmId, scopeOf(userId), channels, asOf ?? seq);
    };
    const feed = {
      consumer: DURABLE_CONSUMERS.identitySubscriptions,
      def: messagingEvents.subscriptionFacts,
      handle: (payload: unknown, { seq }: { seq: number }) => apply(payload as SubscriptionFacts, seq),
    };
    return new SubscriptionCopy(copy, await copy.start([feed], log));
  }

  stop(): Promise<void> {
    return this.consumer.stop();
  }

  /** The channels the user is subscribed to now. */
  async subscribedStreamIds(realmId: number, userId: number): Promise<Set<number>> {
    const channels = (await this.copy.read(realmId, [scopeOf(userId)])).get(scopeOf(userId)) ?? {};
    return new Set(
      Object.entries(channels)
        .filter(([, subscribed]) => subscribed === true)
        .map(([streamId]) => Number(streamId)),
    );
  }
}
