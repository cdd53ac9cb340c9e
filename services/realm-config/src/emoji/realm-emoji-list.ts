import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EventKeyedCache,
  provideState,
  realmConfig,
  realmConfigEvents,
  requireRealm,
  type EventPublisher,
} from "@teamchat/shared";
import { realmEmojiMap } from "./realm-emoji-view";
import type { RealmEmojiRepository } from "./realm-emoji.repository";

/** Emoji kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_EMOJI = 20_000;

/**
 * Each organization's custom emoji as clients see them (GET /realm/emoji,
 * register's realm_emoji), from memory, dropped on the realm_emoji event
 * every change publishes (`changed`) before its reply.
 */
export class RealmEmojiList {
  private readonly cache: EventKeyedCache<
    realmConfig.RealmEmojiMap,
    typeof realmConfigEvents.realmEmojiChanged.payload
  >;

  constructor(
    private readonly emoji: RealmEmojiRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventKeyedCache(nc, log, realmConfigEvents.realmEmojiChanged, ({ realmId }) => [`${realmId}`], {
      name: "realm-emoji",
      maxWeight: MAX_CACHED_EMOJI,
      weigh: (map) => Object.keys(map).length + 1,
    });
  }

  get(realmId: number): Promise<realmConfig.RealmEmojiMap> {
    return this.cache.get(`${realmId}`, async () => realmEmojiMap(await this.emoji.all(realmId)));
  }

  /** Zulip's notify_realm_emoji: everyone in the organization hears the whole set. */
  async changed(events: EventPublisher<"realm-config">, realmId: number, requestId: string): Promise<void> {
    const realm_emoji = realmEmojiMap(await this.emoji.all(realmId));
    events.publish(
      realmConfigEvents.realmEmojiChanged,
      { realmId, userIds: "all", event: { type: "realm_emoji", op: "update", realm_emoji } },
      requestId,
    );
  }

  readonly provider = provideState(realmConfig.realmEmojiPart, async (_params, ctx) => ({
    realm_emoji: await this.get(requireRealm(ctx).id),
  }));

  stop(): void {
    this.cache.stop();
  }
}
