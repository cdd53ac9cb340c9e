import type { Connection } from "mongoose";
import { RealmRepository } from "@teamchat/shared";
import { queueEventSchema, type QueueEventDoc } from "./queue-event.schema";

export class QueueEventRepository extends RealmRepository<QueueEventDoc> {
  constructor(conn: Connection) {
    super(conn.model<QueueEventDoc>("QueueEvent", queueEventSchema));
  }

  async insert(doc: QueueEventDoc): Promise<void> {
    await this.model.create(doc);
  }

  after(realmId: number, queueId: string, afterId: number): Promise<QueueEventDoc[]> {
    return this.model
      .find({ realmId, queueId, id: { $gt: afterId } })
      .sort({ id: 1 })
      .lean<QueueEventDoc[]>()
      .exec();
  }

  /** Acknowledgement: the client has every event up to `id`. */
  async pruneThrough(realmId: number, queueId: string, id: number): Promise<void> {
    await this.model.deleteMany({ realmId, queueId, id: { $lte: id } }).exec();
  }

  async removeQueue(realmId: number, queueId: string): Promise<void> {
    await this.model.deleteMany({ realmId, queueId }).exec();
  }
}
