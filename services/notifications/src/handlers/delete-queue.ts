import { badRequest, notifications, requireUser, type Handler } from "@teamchat/shared";
import { badEventQueueId, type EventStore } from "../event-store";

/** DELETE /events: Zulip's cleanup_event_queue, a collection like an idle queue's. */
export const deleteQueueHandler =
  ({ store }: { store: EventStore }): Handler<typeof notifications.deleteQueue> =>
  async ({ queue_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const q = await store.byId(realm.id, queue_id);
    if (!q) throw badEventQueueId(queue_id);
    if (q.userId !== actor.userId) throw badRequest("You are not authorized to access this queue");
    await store.collect(q);
    return {};
  };
