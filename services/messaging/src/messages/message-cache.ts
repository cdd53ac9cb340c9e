import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { EventCache, messagingEvents, subscribeEvent, type EventSubscription } from "@teamchat/shared";
import { applyReaction } from "./message-reactions";
import { applySubmessage } from "./message-submessages";
import type { MessageDoc } from "./message.schema";

/** Messages kept in memory over all organizations, the least recently read dropped first. */
const MAX_CACHED_MESSAGES = 20_000;

/**
 * Messages by id, as reads by id found them (first unread anchors, is:unread
 * and is:starred pages, message_ids): the messages users read are mostly the
 * same recent ones. Every instance applies reactions and submessages as their events arrive,
 * and drops the messages that edits, moves and deletions name in theirs.
 */
export class MessageCache {
  private readonly cache: EventCache<MessageDoc | null>;
  private readonly subs: EventSubscription[];

  constructor(nc: NatsConnection, log: Logger) {
    this.cache = new EventCache(nc, { name: "messages", maxWeight: MAX_CACHED_MESSAGES, weigh: () => 1 });
    const drop = (realmId: number, ids: number[]) => ids.forEach((id) => this.cache.drop(`${realmId}:${id}`));
    this.subs = [
      subscribeEvent(
        nc,
        messagingEvents.reactionChanged,
        (e) => this.cache.update(`${e.realmId}:${e.event.message_id}`, (m) => m && applyReaction(m, e)),
        { log },
      ),
      subscribeEvent(
        nc,
        messagingEvents.submessageAdded,
        (e) => this.cache.update(`${e.realmId}:${e.event.message_id}`, (m) => m && applySubmessage(m, e)),
        { log },
      ),
      subscribeEvent(nc, messagingEvents.messageUpdated, (e) => drop(e.realmId, e.event.message_ids), { log }),
      subscribeEvent(nc, messagingEvents.messagesDeleted, (e) => drop(e.realmId, e.event.message_ids ?? []), { log }),
    ];
  }

  stop(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }

  /** The messages among `ids` that exist, in their order; those not in memory are read together by `load`. */
  async byIds(
    realmId: number,
    ids: number[],
    load: (missing: number[]) => Promise<MessageDoc[]>,
  ): Promise<MessageDoc[]> {
    const key = (id: number) => `${realmId}:${id}`;
    const found = await this.cache.getMany(
      ids,
      key,
      async (missing) => new Map((await load(missing)).map((m) => [m.messageId, m])),
      () => null,
    );
    // an id with no message (yet): not kept, it may be written later
    ids.forEach((id, i) => {
      if (!found[i]) this.cache.drop(key(id));
    });
    return found.filter((m): m is MessageDoc => m !== null);
  }
}
