import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
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

  /** Every queue of the organization (EventStore keeps them in memory for fan-out). */
  ofRealm(realmId: number): Promise<EventQueueDoc[]> {
    return this.find(realmId, {});
  }

  /** Some users' queues. */
  ofUsers(realmId: number, userIds: number[]): Promise<EventQueueDoc[]> {
    return this.find(realmId, { userId: { $in: userIds } });
  }

  /** The queues of these ids that still exist. */
  byIds(realmId: number, queueIds: string[]): Promise<EventQueueDoc[]> {
    return this.find(realmId, { queueId: { $in: queueIds } });
  }

  /**
   * Records a client's visit at `now`: keeps the queue alive for its lifespan
   * (+ the poll's wait) and notes what it acknowledged; returns what it wrote.
   */
  async touch(
    realmId: number,
    q: Pick<EventQueueDoc, "queueId" | "lifespanSecs" | "prunedThrough">,
    acknowledged: number,
    waitMs: number,
    now: number,
  ): Promise<Pick<EventQueueDoc, "lastAccess" | "expiresAt" | "prunedThrough">> {
    const visit = {
      lastAccess: new Date(now),
      expiresAt: new Date(now + q.lifespanSecs * 1000 + waitMs),
      prunedThrough: Math.max(q.prunedThrough, acknowledged),
    };
    await this.updateOne(
      realmId,
      { queueId: q.queueId },
      { $set: { lastAccess: visit.lastAccess, expiresAt: visit.expiresAt }, $max: { prunedThrough: acknowledged } },
    );
    return visit;
  }

  async remove(realmId: number, queueId: string): Promise<boolean> {
    return (await this.deleteMany(realmId, { queueId })) > 0;
  }

  /** Queues not yet expired, in every organization (the metric of live queues). */
  countLive(now: Date): Promise<number> {
    return this.countInEveryRealm({ expiresAt: { $gte: now } });
  }

  /** Maintenance across organizations (the idle sweep). */
  expired(now: Date): Promise<EventQueueDoc[]> {
    return this.findInEveryRealm({ expiresAt: { $lt: now } });
  }
}
