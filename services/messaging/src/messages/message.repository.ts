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
}
