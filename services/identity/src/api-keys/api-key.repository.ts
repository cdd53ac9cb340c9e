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

  /** Issues a new key for the user and returns it in clear, the only time it exists so. */
  async issue(realmId: number, userId: number): Promise<string> {
    const key = generateApiKey();
    await this.insertOne({ realmId, userId, keyHash: hashApiKey(key), createdAt: new Date() });
    return key;
  }

  /** The key's row, found by its hash: authentication. */
  byKey(realmId: number, key: string): Promise<ApiKeyDoc | null> {
    return this.findOne(realmId, { keyHash: hashApiKey(key) });
  }
}
