import { randomBytes } from "node:crypto";
import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { callSigningKeySchema, type CallSigningKeyDoc } from "./call-signing-key.schema";

export class CallSigningKeyRepository extends TenantRepository<CallSigningKeyDoc> {
  constructor(conn: Connection) {
    super(conn.model<CallSigningKeyDoc>("CallSigningKey", callSigningKeySchema));
  }

  /** The organization's key, made by the first caller (the unique index keeps one when two race). */
  async keyOf(realmId: number): Promise<string> {
    await this.upsertOne(realmId, {}, { $setOnInsert: { key: randomBytes(32).toString("base64url") } });
    return (await this.findOne(realmId, {}))!.key;
  }
}
