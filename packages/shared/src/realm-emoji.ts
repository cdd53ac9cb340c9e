import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { requireRealm, type BusClient, type CallContext } from "./bus";
import { listRealmEmoji, type RealmEmojiMap } from "./contracts/realm-config/emoji";
import { EventKeyedCache } from "./event-keyed-cache";
import { realmEmojiChanged } from "./events/realm-config";

/** Custom emoji kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_EMOJI = 20_000;

/**
 * An organization's custom emoji for the services that check emoji (messaging's
 * reactions, identity's statuses): asked of realm-config once, then kept and
 * dropped on the realm_emoji event every change publishes before its reply.
 */
export class RealmEmojiSource {
  private readonly cache: EventKeyedCache<RealmEmojiMap, typeof realmEmojiChanged.payload>;

  constructor(
    nc: NatsConnection,
    private readonly bus: BusClient,
    log: Logger,
  ) {
    this.cache = new EventKeyedCache(nc, log, realmEmojiChanged, ({ realmId }) => [`${realmId}`], {
      name: "realm-emoji",
      maxWeight: MAX_CACHED_EMOJI,
      weigh: (emoji) => Object.keys(emoji).length + 1,
    });
  }

  get(ctx: CallContext): Promise<RealmEmojiMap> {
    return this.cache.get(`${requireRealm(ctx).id}`, async () => {
      const { emoji } = await this.bus.request(listRealmEmoji, {}, ctx);
      return emoji;
    });
  }

  stop(): void {
    this.cache.stop();
  }
}
