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
        lastMessageId: 0,
      });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await this.byUsers(realmId, userIds))!;
    }
  }

  /** Records a new message of the conversation. */
  async noteMessage(realmId: number, key: string, messageId: number): Promise<void> {
    await this.updateOne(realmId, { key, lastMessageId: { $lt: messageId } }, { $set: { lastMessageId: messageId } });
  }

  /** After messages of the conversation were deleted: its newest remaining message id (0: none). */
  async setLastMessage(realmId: number, key: string, messageId: number): Promise<void> {
    await this.updateOne(realmId, { key }, { $set: { lastMessageId: messageId } });
  }

  /** The user's conversations that have messages, the most recent first. */
  async recentOf(realmId: number, userId: number): Promise<ConversationDoc[]> {
    const rows = await this.findOfUser(realmId, "userIds", userId, { lastMessageId: { $gt: 0 } });
    return rows.sort((a, b) => b.lastMessageId - a.lastMessageId);
  }
}
