import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { userMessageSchema, type UserMessageDoc } from "./user-message.schema";

export class UserMessageRepository extends TenantRepository<UserMessageDoc> {
  constructor(conn: Connection) {
    super(conn.model<UserMessageDoc>("UserMessage", userMessageSchema));
  }

  /** One row per recipient of a new message, with their flags. */
  deliver(realmId: number, messageId: number, recipients: Array<{ userId: number; flags: string[] }>): Promise<void> {
    return this.insertMany(
      recipients.map(({ userId, flags }) => ({
        realmId,
        userId,
        messageId,
        flags,
        unread: !flags.includes("read"),
      })),
    );
  }

  /** Ids of the user's messages that have a flag. */
  async idsWithFlag(realmId: number, userId: number, flag: string): Promise<number[]> {
    const rows = await this.find(realmId, { userId, flags: flag }, { projection: { messageId: 1 } });
    return rows.map((r) => r.messageId);
  }

  /** The user's unread rows: message id and flags. */
  unreadOf(realmId: number, userId: number): Promise<Array<Pick<UserMessageDoc, "messageId" | "flags">>> {
    return this.find(realmId, { userId, unread: true }, { projection: { messageId: 1, flags: 1 } });
  }
}
