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

  /** Raises the queue's highest event id (a hint for appenders and readers; the events' unique index is the truth). */
  async noteEventId(realmId: number, queueId: string, id: number): Promise<void> {
    await this.model.updateOne({ realmId, queueId }, { $max: { lastEventId: id } }).exec();
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
