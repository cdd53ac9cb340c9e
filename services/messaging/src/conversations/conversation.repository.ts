import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository, isDuplicateKey } from "@teamchat/shared";
import { conversationSchema, type ConversationDoc } from "./conversation.schema";

export const conversationKey = (userIds: number[]): string => [...new Set(userIds)].sort((a, b) => a - b).join(",");

export class ConversationRepository extends TenantRepository<ConversationDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ConversationDoc>("Conversation", conversationSchema));
  }

  byUsers(realmId: number, userIds: number[]): Promise<ConversationDoc | null> {
    return this.findOne(realmId, { key: conversationKey(userIds) });
  }

  /** The conversation of these participants, created on first use (concurrent creators agree by the unique key). */
  async ensure(realmId: number, userIds: number[]): Promise<ConversationDoc> {
    const existing = await this.byUsers(realmId, userIds);
    if (existing) return existing;
    const key = conversationKey(userIds);
    try {
      return await this.insertOne({
        realmId,
        key,
        userIds: key.split(",").map(Number),
        recipientId: await this.ids.next("recipient"),
      });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await this.byUsers(realmId, userIds))!;
    }
  }
}
