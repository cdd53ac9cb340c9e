import type { NatsConnection } from "@nats-io/transport-node";
import {
  EventCache,
  identity,
  identityEvents,
  messagingEvents,
  subscribeEvent,
  type BusClient,
  type CallContext,
  type EventSubscription,
  type Logger,
} from "@teamchat/shared";
import type { SubscriptionRepository } from "../subscriptions/subscription.repository";
import type { UserTopicRepository } from "../user-topics/user-topic.repository";
import { indexOf } from "../user-messages/read-state";

/** What a channel's own settings say about notifying its subscribers of every message. */
interface ChannelSettings {
  /** subscribers whose subscription turns the channel's email or push notifications on */
  bySubscription: number[];
  /** each followed topic's followers, by topic key */
  followers: Map<string, number[]>;
  /** the users listed, for the cache's weight */
  size: number;
}

/** Users kept in the caches' lists, over all channels and organizations. */
const MAX_CACHED_USERS = 100_000;

/**
 * Who a channel message may notify although it mentions nobody: Zulip's
 * get_recipient_info selects them by their settings (stream_email_user_ids,
 * stream_push_user_ids, followed_topic_email_user_ids,
 * followed_topic_push_user_ids) instead of deciding for every subscriber; so
 * does this, so that a send's notification work follows those few and not
 * the channel's size. A superset of Zulip's sets: every subscriber whose
 * subscription turns the channel's email or push notifications on, who
 * follows the topic, or whose own settings turn every channel's on (a muted
 * channel or topic, or a subscription turning it off again, is left to the
 * decision, which reads each candidate's settings).
 *
 * Kept per channel (subscriptions with a setting on, followed topics: three
 * reads that return the few rows that match) and per organization (identity's users
 * with enable_stream_email_notifications or enable_stream_push_notifications
 * on), each dropped by every instance on the events of the writes that
 * change it: a subscription changed (`subscriptionsChanged`), a topic's
 * visibility policy (`user_topic`), any user of the organization
 * (`usersChanged`, which covers settings, new and deactivated users).
 */
export class NotificationCandidateCache {
  private readonly channels: EventCache<ChannelSettings>;
  private readonly realms: EventCache<number[]>;
  private readonly subs: EventSubscription[];

  constructor(
    private readonly subscriptions: Pick<SubscriptionRepository, "notifiedOfEveryMessage">,
    private readonly userTopics: Pick<UserTopicRepository, "followersIn">,
    private readonly bus: BusClient,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.channels = new EventCache(nc, {
      name: "notification-candidates-of-channels",
      maxWeight: MAX_CACHED_USERS,
      weigh: (c) => c.size + 1,
    });
    this.realms = new EventCache(nc, {
      name: "notification-candidates-of-realms",
      maxWeight: MAX_CACHED_USERS,
      weigh: (ids) => ids.length + 1,
    });
    this.subs = [
      subscribeEvent(
        nc,
        messagingEvents.subscriptionsChanged,
        ({ realmId, streamIds }) => streamIds.forEach((id) => this.channels.drop(`${realmId}:${id}`)),
        { log },
      ),
      subscribeEvent(
        nc,
        messagingEvents.userTopicChanged,
        ({ realmId, event }) => this.channels.drop(`${realmId}:${event.stream_id}`),
        { log },
      ),
      subscribeEvent(nc, identityEvents.usersChanged, ({ realmId }) => this.realms.drop(`${realmId}`), { log }),
    ];
  }

  stop(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }

  /**
   * The receivers of a message to the channel's topic whose settings may
   * notify them of it without a mention, ascending; `receivers` are the
   * channel's subscribers, ascending (channelDestination).
   */
  async of(
    ctx: CallContext,
    realmId: number,
    streamId: number,
    topicKey: string,
    receivers: readonly number[],
  ): Promise<number[]> {
    const [channel, everyChannel] = await Promise.all([
      this.channels.get(`${realmId}:${streamId}`, () => this.loadChannel(realmId, streamId)),
      this.realms.get(`${realmId}`, async () => {
        const { user_ids } = await this.bus.request(identity.getChannelNotificationUsers, {}, ctx);
        return user_ids;
      }),
    ]);
    const candidates = new Set([
      ...channel.bySubscription,
      ...(channel.followers.get(topicKey) ?? []),
      ...everyChannel,
    ]);
    return [...candidates].filter((id) => indexOf(receivers, id) >= 0).sort((a, b) => a - b);
  }

  private async loadChannel(realmId: number, streamId: number): Promise<ChannelSettings> {
    const [bySubscription, followed] = await Promise.all([
      this.subscriptions.notifiedOfEveryMessage(realmId, streamId),
      this.userTopics.followersIn(realmId, streamId),
    ]);
    const followers = new Map<string, number[]>();
    for (const { userId, topicKey } of followed) {
      const ofTopic = followers.get(topicKey);
      if (ofTopic) ofTopic.push(userId);
      else followers.set(topicKey, [userId]);
    }
    return { bySubscription, followers, size: bySubscription.length + followed.length };
  }
}
