import type { Connection } from "mongoose";
import { TenantRepository, isDuplicateKey, type IdAllocator } from "@teamchat/shared";
import { alertWordSchema, type AlertWordDoc } from "./alert-word.schema";

export class AlertWordRepository extends TenantRepository<AlertWordDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<AlertWordDoc>("AlertWord", alertWordSchema));
  }

  /** Every user's words, in the order they were added. */
  async ofRealm(realmId: number): Promise<Map<number, string[]>> {
    const byUser = new Map<number, string[]>();
    for (const row of (await this.find(realmId, {})).sort((a, b) => a.wordId - b.wordId)) {
      byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row.word]);
    }
    return byUser;
  }

  /** The user's words, in the order they were added. */
  async ofUser(realmId: number, userId: number): Promise<string[]> {
    return (await this.find(realmId, { userId })).sort((a, b) => a.wordId - b.wordId).map((r) => r.word);
  }

  /** Adds words the user does not have; a word another request added meanwhile is left as it is. */
  async add(realmId: number, userId: number, words: string[]): Promise<void> {
    for (const word of words) {
      try {
        await this.insertOne({
          realmId,
          userId,
          word,
          wordKey: word.toLowerCase(),
          wordId: await this.ids.next("alert_word"),
        });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
  }

  /** Removes these words, case-insensitively. */
  async remove(realmId: number, userId: number, words: string[]): Promise<void> {
    await this.deleteMany(realmId, { userId, wordKey: { $in: words.map((w) => w.toLowerCase()) } });
  }
}
