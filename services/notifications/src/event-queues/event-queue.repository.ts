import type { Connection } from "mongoose";
import { RealmRepository } from "@teamchat/shared";
import { eventQueueSchema, type EventQueueDoc } from "./event-queue.schema";

export class EventQueueRepository extends RealmRepository<EventQueueDoc> {
  constructor(conn: Connection) {
    super(conn.model<EventQueueDoc>("EventQueue", eventQueueSchema));
  }

  async insert(doc: EventQueueDoc): Promise<void> {
    await this.model.create(doc);
  }

  byId(realmId: number, queueId: string): Promise<EventQueueDoc | null> {
    return this.findOne({ realmId, queueId });
  }

  /** The queues a domain event goes to. */
  ofUsers(realmId: number, userIds: number[] | "all"): Promise<EventQueueDoc[]> {
    return this.find(userIds === "all" ? { realmId } : { realmId, userId: { $in: userIds } });
  }

  /** The queue's next event id (atomic: the queue document exists, so `$inc` needs no upsert), or null when the queue is gone. */
  async nextEventId(realmId: number, queueId: string): Promise<number | null> {
    const q = await this.model
      .findOneAndUpdate(
        { realmId, queueId },
        { $inc: { lastEventId: 1 } },
        { returnDocument: "after", projection: { lastEventId: 1 } },
      )
      .lean<Pick<EventQueueDoc, "lastEventId">>()
      .exec();
    return q?.lastEventId ?? null;
  }

  /** Records a client's visit: keeps the queue alive for its lifespan (+ the poll's wait) and notes what it acknowledged. */
  async touch(q: EventQueueDoc, acknowledged: number, waitMs: number): Promise<void> {
    const now = Date.now();
    await this.model
      .updateOne(
        { realmId: q.realmId, queueId: q.queueId },
        {
          $set: { lastAccess: new Date(now), expiresAt: new Date(now + q.lifespanSecs * 1000 + waitMs) },
          $max: { prunedThrough: acknowledged },
        },
      )
      .exec();
  }

  async remove(realmId: number, queueId: string): Promise<boolean> {
    const res = await this.model.deleteOne({ realmId, queueId }).exec();
    return res.deletedCount > 0;
  }

  /** Maintenance across organizations (the idle sweep), hence no realmId. */
  expired(now: Date): Promise<Array<Pick<EventQueueDoc, "realmId" | "queueId">>> {
    return this.model
      .find({ expiresAt: { $lt: now } }, { realmId: 1, queueId: 1 })
      .lean<Array<Pick<EventQueueDoc, "realmId" | "queueId">>>()
      .exec();
  }
}
