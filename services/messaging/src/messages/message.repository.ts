import type { Connection } from "mongoose";
import { IdAllocator, RealmRepository, type RealmFilter } from "@teamchat/shared";
import { messageSchema, type MessageDoc } from "./message.schema";

export class MessageRepository extends RealmRepository<MessageDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<MessageDoc>("Message", messageSchema));
  }

  async insert(message: Omit<MessageDoc, "messageId">): Promise<MessageDoc> {
    const doc: MessageDoc = { ...message, messageId: await this.ids.next("message") };
    await this.model.create(doc);
    return doc;
  }

  /** Messages matching `filter`, ordered by id (descending = newest first), at most `limit`. */
  range(filter: RealmFilter<MessageDoc>, direction: 1 | -1, limit: number): Promise<MessageDoc[]> {
    return this.model.find(filter).sort({ messageId: direction }).limit(limit).lean<MessageDoc[]>().exec();
  }

  async maxId(realmId: number): Promise<number> {
    const [last] = await this.range({ realmId }, -1, 1);
    return last?.messageId ?? -1;
  }

  /** Topics of the matching messages with their newest message id, most recent first. */
  async topics(filter: RealmFilter<MessageDoc>): Promise<Array<{ name: string; max_id: number }>> {
    const rows = await this.model
      .find(filter, { topic: 1, topicKey: 1, messageId: 1 })
      .sort({ messageId: -1 })
      .lean<Array<Pick<MessageDoc, "topic" | "topicKey" | "messageId">>>()
      .exec();
    const seen = new Map<string, { name: string; max_id: number }>();
    for (const r of rows) if (!seen.has(r.topicKey)) seen.set(r.topicKey, { name: r.topic, max_id: r.messageId });
    return [...seen.values()];
  }
}
