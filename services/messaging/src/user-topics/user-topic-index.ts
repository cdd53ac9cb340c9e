import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EventCache,
  messaging,
  messagingEvents,
  subscribeEvent,
  type PayloadOf,
  type EventSubscription,
} from "@teamchat/shared";
import type { UserTopicRepository } from "./user-topic.repository";

/** A topic the user set a visibility policy for. */
export interface UserTopic {
  streamId: number;
  topicName: string;
  visibilityPolicy: messaging.VisibilityPolicy;
  lastUpdated: number;
}

const keyOf = (streamId: number, topic: string) => `${streamId}:${topic.toLowerCase()}`;

/** One user's topics with a visibility policy, by channel and lowercased topic. */
export class UserTopics {
  private readonly byTopic = new Map<string, UserTopic>();

  constructor(topics: UserTopic[]) {
    for (const t of topics) this.byTopic.set(keyOf(t.streamId, t.topicName), t);
  }

  get size(): number {
    return this.byTopic.size;
  }

  /** Zulip's get_topic_visibility_policy: 0 (inherit) when the user set none. */
  policyOf(streamId: number, topic: string): messaging.VisibilityPolicy {
    return this.byTopic.get(keyOf(streamId, topic))?.visibilityPolicy ?? messaging.VISIBILITY_POLICY.INHERIT;
  }

  /** Every topic, the least recently changed first. */
  all(): UserTopic[] {
    return [...this.byTopic.values()].sort((a, b) => a.lastUpdated - b.lastUpdated);
  }

  /** A policy set (the first spelling of the topic stays, as in the database) or removed (0). */
  apply(change: UserTopic): void {
    const key = keyOf(change.streamId, change.topicName);
    if (change.visibilityPolicy === messaging.VISIBILITY_POLICY.INHERIT) {
      this.byTopic.delete(key);
      return;
    }
    const known = this.byTopic.get(key);
    this.byTopic.set(key, { ...change, topicName: known?.topicName ?? change.topicName });
  }
}

/** Users' topics kept in memory over all users; the least recently used users are dropped beyond it. */
const MAX_CACHED_TOPICS = 100_000;

type UserTopicChanged = PayloadOf<typeof messagingEvents.userTopicChanged>;

/**
 * Each user's topics with a visibility policy (UserTopics), kept in memory:
 * register's user_topics, muted_topics and unread_msgs and the unread details
 * of update_message_flags read them here. Loaded on first use (one read of the
 * user's rows) and kept current by user_topic events (see EventCache).
 */
export class UserTopicIndex {
  private readonly cache: EventCache<UserTopics>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly repository: UserTopicRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, { name: "user-topics", maxWeight: MAX_CACHED_TOPICS, weigh: (t) => t.size + 1 });
    this.sub = subscribeEvent(nc, messagingEvents.userTopicChanged, (e) => this.onChange(e), { log });
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  /** Writes go to the database; every instance's copy follows the user_topic event the writer publishes. */
  set(...args: Parameters<UserTopicRepository["set"]>): Promise<boolean> {
    return this.repository.set(...args);
  }

  remove(...args: Parameters<UserTopicRepository["remove"]>): Promise<boolean> {
    return this.repository.remove(...args);
  }

  of(realmId: number, userId: number): Promise<UserTopics> {
    return this.cache.get(`${realmId}:${userId}`, async () => new UserTopics(await this.stored(realmId, userId)));
  }

  /** The user's topics as the database has them now (not this instance's copy). */
  async stored(realmId: number, userId: number): Promise<UserTopic[]> {
    return (await this.repository.ofUser(realmId, userId)).map((r) => ({
      streamId: r.streamId,
      topicName: r.topicName,
      visibilityPolicy: r.visibilityPolicy,
      lastUpdated: r.lastUpdated,
    }));
  }

  private onChange({ realmId, userIds, event }: UserTopicChanged): void {
    if (userIds === "all") return;
    const change: UserTopic = {
      streamId: event.stream_id,
      topicName: event.topic_name,
      visibilityPolicy: event.visibility_policy as messaging.VisibilityPolicy,
      lastUpdated: event.last_updated,
    };
    for (const userId of userIds) this.cache.update(`${realmId}:${userId}`, (t) => t.apply(change));
  }
}
