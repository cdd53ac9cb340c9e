import type { NatsConnection } from "@nats-io/transport-node";
import { EventCache } from "@teamchat/shared";
import type { MessageDoc } from "./message.schema";

/** Messages kept in memory over all organizations, the least recently read dropped first. */
const MAX_CACHED_MESSAGES = 20_000;

/**
 * Messages by id, as reads by id found them (first unread anchors, is:unread
 * and is:starred pages, message_ids): the messages users read are mostly the
 * same recent ones. A message never changes once sent today; the operations
 * that edit, move or delete messages must make every instance drop them.
 */
export class MessageCache {
  private readonly cache: EventCache<MessageDoc | null>;

  constructor(nc: NatsConnection) {
    this.cache = new EventCache(nc, { maxWeight: MAX_CACHED_MESSAGES, weigh: () => 1 });
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
