import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { realmEmojiSchema, type RealmEmojiDoc } from "./realm-emoji.schema";

export type NewRealmEmoji = Pick<RealmEmojiDoc, "name" | "fileId" | "contentType" | "size" | "authorId">;

const deactivatedKey = (emojiId: number) => `\u0000deactivated:${emojiId}`;

export class RealmEmojiRepository extends TenantRepository<RealmEmojiDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<RealmEmojiDoc>("RealmEmoji", realmEmojiSchema));
  }

  all(realmId: number): Promise<RealmEmojiDoc[]> {
    return this.find(realmId, {}, { sort: { emojiId: 1 } });
  }

  activeByName(realmId: number, name: string): Promise<RealmEmojiDoc | null> {
    return this.findOne(realmId, { activeNameKey: name });
  }

  byFileName(realmId: number, fileName: string): Promise<RealmEmojiDoc | null> {
    return this.findOne(realmId, { fileName });
  }

  /** An active name taken fails with the unique index's error. */
  async insert(realmId: number, emoji: NewRealmEmoji, extension: string): Promise<RealmEmojiDoc> {
    const emojiId = await this.ids.next("realm_emoji");
    return this.insertOne({
      ...emoji,
      realmId,
      emojiId,
      activeNameKey: emoji.name,
      fileName: `${emojiId}${extension}`,
      deactivated: false,
    });
  }

  async deactivate(realmId: number, emojiId: number): Promise<void> {
    await this.updateOne(realmId, { emojiId }, { $set: { deactivated: true, activeNameKey: deactivatedKey(emojiId) } });
  }
}
