import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { queueEventSchema, type QueueEventDoc } from "./queue-event.schema";

export class QueueEventRepository extends TenantRepository<QueueEventDoc> {
  constructor(conn: Connection) {
    super(conn.model<QueueEventDoc>("QueueEvent", queueEventSchema));
  }

  async add(event: QueueEventDoc): Promise<void> {
    await this.insertOne(event);
  }

  /** A queue's events after `afterId`, in order. */
  after(realmId: number, queueId: string, afterId: number): Promise<QueueEventDoc[]> {
    return this.find(realmId, { queueId, id: { $gt: afterId } }, { sort: { id: 1 } });
  }

  /** Acknowledgement: the client has every event up to `id`. */
  async pruneThrough(realmId: number, queueId: string, id: number): Promise<void> {
    await this.deleteMany(realmId, { queueId, id: { $lte: id } });
  }

  async removeQueue(realmId: number, queueId: string): Promise<void> {
    await this.deleteMany(realmId, { queueId });
  }
}
