import type { Connection } from "mongoose";
import { TenantRepository, type Audience } from "@teamchat/shared";
import { eventQueueSchema, type EventQueueDoc } from "./event-queue.schema";

export class EventQueueRepository extends TenantRepository<EventQueueDoc> {
  constructor(conn: Connection) {
    super(conn.model<EventQueueDoc>("EventQueue", eventQueueSchema));
  }

  async create(queue: EventQueueDoc): Promise<void> {
    await this.insertOne(queue);
  }

  byId(realmId: number, queueId: string): Promise<EventQueueDoc | null> {
    return this.findOne(realmId, { queueId });
  }

  /** The queues an event goes to. */
  ofUsers(realmId: number, userIds: Audience): Promise<EventQueueDoc[]> {
    return this.find(realmId, userIds === "all" ? {} : { userId: { $in: userIds } });
  }

  /** The queue's next event id (atomic: the queue document exists, so `$inc` needs no upsert), or null when the queue is gone. */
  async nextEventId(realmId: number, queueId: string): Promise<number | null> {
    const q = await this.findOneAndUpdate(realmId, { queueId }, { $inc: { lastEventId: 1 } });
    return q?.lastEventId ?? null;
  }

  /** Records a client's visit: keeps the queue alive for its lifespan (+ the poll's wait) and notes what it acknowledged. */
  async touch(
    realmId: number,
    q: Pick<EventQueueDoc, "queueId" | "lifespanSecs">,
    acknowledged: number,
    waitMs: number,
  ): Promise<void> {
    const now = Date.now();
    await this.updateOne(
      realmId,
      { queueId: q.queueId },
      {
        $set: { lastAccess: new Date(now), expiresAt: new Date(now + q.lifespanSecs * 1000 + waitMs) },
        $max: { prunedThrough: acknowledged },
      },
    );
  }

  async remove(realmId: number, queueId: string): Promise<boolean> {
    return (await this.deleteMany(realmId, { queueId })) > 0;
  }

  /** Maintenance across organizations (the idle sweep). */
  expired(now: Date): Promise<EventQueueDoc[]> {
    return this.findInEveryRealm({ expiresAt: { $lt: now } });
  }
}
