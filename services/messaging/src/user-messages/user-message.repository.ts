import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { userMessageRow, userMessageSchema, type UserMessageDoc } from "./user-message.schema";

export class UserMessageRepository extends TenantRepository<UserMessageDoc> {
  constructor(conn: Connection) {
    super(conn.model<UserMessageDoc>("UserMessage", userMessageSchema));
  }

  /** One row per recipient of a new message, with their flags. */
  deliver(realmId: number, messageId: number, recipients: Array<{ userId: number; flags: string[] }>): Promise<void> {
    return this.insertMany(recipients.map(({ userId, flags }) => userMessageRow(realmId, userId, messageId, flags)));
  }

  /** The user's unread or flagged rows: message id, flags and whether unread. */
  markedOf(realmId: number, userId: number): Promise<Array<Pick<UserMessageDoc, "messageId" | "flags" | "unread">>> {
    return this.find(realmId, { userId, marked: true }, { projection: { messageId: 1, flags: 1, unread: 1 } });
  }
}
