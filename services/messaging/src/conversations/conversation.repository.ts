import type { Connection } from "mongoose";
import { IdAllocator, RealmRepository, isDuplicateKey } from "@teamchat/shared";
import { conversationSchema, type ConversationDoc } from "./conversation.schema";

export const conversationKey = (userIds: number[]): string => [...new Set(userIds)].sort((a, b) => a - b).join(",");

export class ConversationRepository extends RealmRepository<ConversationDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ConversationDoc>("Conversation", conversationSchema));
  }

  byUsers(realmId: number, userIds: number[]): Promise<ConversationDoc | null> {
    return this.findOne({ realmId, key: conversationKey(userIds) });
  }

  /** The conversation of these participants, created on first use (concurrent creators agree by the unique key). */
  async ensure(realmId: number, userIds: number[]): Promise<ConversationDoc> {
    const existing = await this.byUsers(realmId, userIds);
    if (existing) return existing;
    const key = conversationKey(userIds);
    const doc: ConversationDoc = {
      realmId,
      key,
      userIds: key.split(",").map(Number),
      recipientId: await this.ids.next("recipient"),
    };
    try {
      await this.model.create(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await this.byUsers(realmId, userIds))!;
    }
  }
}
