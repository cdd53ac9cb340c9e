import type { Connection } from "mongoose";
import { createHash, randomBytes } from "node:crypto";
import { TenantRepository } from "@teamchat/shared";
import { apiKeySchema, type ApiKeyDoc } from "./api-key.schema";

const KEY_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
export const API_KEY_LENGTH = 32;

/** 32 random alphanumeric characters, as Zulip's API keys. */
export function generateApiKey(): string {
  const bytes = randomBytes(API_KEY_LENGTH * 2);
  let key = "";
  // Rejection sampling keeps every character equally likely.
  for (const b of bytes) {
    if (b < 248) key += KEY_ALPHABET[b % 62];
    if (key.length === API_KEY_LENGTH) return key;
  }
  return key + generateApiKey().slice(key.length);
}

export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

export class ApiKeyRepository extends TenantRepository<ApiKeyDoc> {
  constructor(conn: Connection) {
    super(conn.model<ApiKeyDoc>("ApiKey", apiKeySchema));
  }

  /** Issues a new key for the user and returns it in clear, the only time a user's key exists so (a bot's is kept). */
  async issue(realmId: number, userId: number, { bot = false } = {}): Promise<string> {
    const key = generateApiKey();
    await this.insertOne({
      realmId,
      userId,
      keyHash: hashApiKey(key),
      ...(bot ? { botKey: key } : {}),
      createdAt: new Date(),
    });
    return key;
  }

  /**
   * Zulip's do_regenerate_api_key: a new key, and every earlier key of the user
   * revoked (the new one is written first, so the user is never without one).
   */
  async replace(realmId: number, userId: number, { bot = false } = {}): Promise<string> {
    const key = await this.issue(realmId, userId, { bot });
    await this.deleteMany(realmId, { userId, keyHash: { $ne: hashApiKey(key) } });
    return key;
  }

  /** The bots' current keys, by bot id. */
  async botKeys(realmId: number, botIds: number[]): Promise<Map<number, string>> {
    if (botIds.length === 0) return new Map();
    const rows = await this.find(realmId, { userId: { $in: botIds }, botKey: { $exists: true } });
    return new Map(rows.map((r) => [r.userId, r.botKey!]));
  }

  /** The key's row, found by its hash: authentication. */
  byKey(realmId: number, key: string): Promise<ApiKeyDoc | null> {
    return this.findOne(realmId, { keyHash: hashApiKey(key) });
  }
}
