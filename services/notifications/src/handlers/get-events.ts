import { RawJson, badRequest, notifications, requireUser, type Handler } from "@teamchat/shared";
import type { EventStore, StoredEvent } from "../event-store";
import type { ParkedPolls } from "../parked-polls";

/**
 * GET /events: acknowledges events up to last_event_id, answers at once when
 * events wait (or dont_block), else parks until an append wakes it or the
 * heartbeat is due. The heartbeat is a queued event like any other.
 */
export const getEventsHandler =
  ({
    store,
    parked,
    heartbeatSeconds,
  }: {
    store: EventStore;
    parked: ParkedPolls;
    heartbeatSeconds: number;
  }): Handler<typeof notifications.getEvents> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (p.queue_id === undefined) throw badRequest("Missing 'queue_id' argument");
    if (p.last_event_id === undefined) throw badRequest("Missing 'last_event_id' argument");
    const queueId = p.queue_id;
    const acked = p.last_event_id;
    const q = await store.access(realm.id, actor.userId, queueId);
    if (acked < q.prunedThrough) throw badRequest(`An event newer than ${acked} has already been pruned!`);
    const announced = parked.newestAnnounced(queueId);
    if (acked > Math.max(q.prunedThrough, announced ?? -1) && acked > (await store.lastEventId(queueId))) {
      throw badRequest(`Event ${acked} was not in this queue`);
    }

    // the bus gives up after timeoutMs: the heartbeat must come first
    const waitMs = p.dont_block
      ? 0
      : Math.min(heartbeatSeconds * 1000, notifications.getEvents.timeoutMs! - notifications.EVENTS_TIMEOUT_MARGIN_MS);
    await store.visit(realm.id, q, acked, waitMs);

    const waiter = parked.listen(queueId);
    try {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const events = await store.pending(
          realm.id,
          queueId,
          acked,
          parked.newestAnnounced(queueId),
          parked.carriedWakes(queueId),
        );
        if (events === null) return answer([], queueId); // deleted while we waited
        if (events.length > 0 || p.dont_block) return answer(events, queueId);
        // parked: other requests may use this instance's handler slot meanwhile
        if (!(await ctx.parked(waiter.next(deadline - Date.now())))) break;
      }
      const heartbeat = await store.append(queueId, { type: "heartbeat" });
      return answer((await store.pending(realm.id, queueId, acked, heartbeat)) ?? [], queueId);
    } finally {
      parked.dispose(queueId, waiter);
    }
  };

/**
 * The reply, written around the events' JSON as the stream holds it: each
 * delivered event is then serialized once, when it is queued, not parsed and
 * serialized again by every poll that answers it. (An event always has
 * members, its type at least, so the id goes before the first.)
 */
function answer(events: StoredEvent[], queueId: string): RawJson {
  const withIds = events.map(({ id, json }) => `{"id":${id},${json.slice(1)}`);
  return new RawJson(`{"events":[${withIds.join(",")}],"queue_id":${JSON.stringify(queueId)}}`);
}
