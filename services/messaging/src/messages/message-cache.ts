import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { EventCache, messagingEvents, subscribeEvent } from "@teamchat/shared";
import { applyReaction } from "./message-reactions";
import type { MessageDoc } from "./message.schema";

/** Messages kept in memory over all organizations, the least recently read dropped first. */
const MAX_CACHED_MESSAGES = 20_000;

/**
 * Messages by id, as reads by id found them (first unread anchors, is:unread
 * and is:starred pages, message_ids): the messages users read are mostly the
 * same recent ones. Reactions are applied as their events arrive; the
 * operations that edit, move or delete messages must make every instance drop them.
 */
export class MessageCache {
  private readonly cache: EventCache<MessageDoc | null>;
  private readonly sub: Subscription;

  constructor(nc: NatsConnection, log: Logger) {
    this.cache = new EventCache(nc, { maxWeight: MAX_CACHED_MESSAGES, weigh: () => 1 });
    this.sub = subscribeEvent(
      nc,
      messagingEvents.reactionChanged,
      (e) => this.cache.update(`${e.realmId}:${e.event.message_id}`, (m) => m && applyReaction(m, e)),
      { log },
    );
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  /** The messages among `ids` that exist, any order; those not in memory are read together by `load`. */
  async byIds(
    realmId: number,
    ids: number[],
    load: (missing: number[]) => Promise<MessageDoc[]>,
  ): Promise<MessageDoc[]> {
    const key = (id: number) => `${realmId}:${id}`;
    const missing = ids.filter((id) => !this.cache.has(key(id)));
    const loaded = missing.length ? load(missing).then((rows) => new Map(rows.map((m) => [m.messageId, m]))) : null;
    const found = await Promise.all(
      ids.map(async (id) => {
        const m = await this.cache.get(key(id), async () => (loaded ? ((await loaded).get(id) ?? null) : null));
        // an id with no message (yet): not kept, it may be written later
        if (!m) this.cache.drop(key(id));
        return m;
      }),
    );
    return found.filter((m): m is MessageDoc => m !== null);
  }
}
