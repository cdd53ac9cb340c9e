import type { Connection } from "mongoose";
import { RealmRepository } from "@teamchat/shared";
import { userMessageSchema, type UserMessageDoc } from "./user-message.schema";

export class UserMessageRepository extends RealmRepository<UserMessageDoc> {
  constructor(conn: Connection) {
    super(conn.model<UserMessageDoc>("UserMessage", userMessageSchema));
  }

  async insertMany(rows: UserMessageDoc[]): Promise<void> {
    if (rows.length) await this.model.insertMany(rows, { ordered: false });
  }

  /** message id → flags, for the given messages of one user */
  async flagsOf(realmId: number, userId: number, messageIds: number[]): Promise<Map<number, string[]>> {
    const rows = await this.find({ realmId, userId, messageId: { $in: messageIds } });
    return new Map(rows.map((r) => [r.messageId, r.flags]));
  }

  /** Ids of the user's messages that have (or, with `has` false, lack) a flag. */
  async idsWithFlag(realmId: number, userId: number, flag: string, has = true): Promise<number[]> {
    const rows = await this.model
      .find({ realmId, userId, flags: has ? flag : { $ne: flag } }, { messageId: 1 })
      .lean<Array<{ messageId: number }>>()
      .exec();
    return rows.map((r) => r.messageId);
  }
}
