import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { pushDeviceTokenSchema, type PushDeviceTokenDoc } from "./push-device-token.schema";

type Kind = PushDeviceTokenDoc["kind"];

export class PushDeviceTokenRepository extends TenantRepository<PushDeviceTokenDoc> {
  constructor(conn: Connection) {
    super(conn.model<PushDeviceTokenDoc>("PushDeviceToken", pushDeviceTokenSchema));
  }

  ofUser(realmId: number, userId: number): Promise<PushDeviceTokenDoc[]> {
    return this.find(realmId, { userId });
  }

  /** The user's registration of this token, of either kind. */
  byToken(realmId: number, userId: number, token: string): Promise<PushDeviceTokenDoc | null> {
    return this.findOne(realmId, { userId, token });
  }

  /** Adds the token; one already registered stays as it was (Zulip's bulk_create with ignore_conflicts). */
  async add(realmId: number, userId: number, kind: Kind, token: string, iosAppId: string | null): Promise<void> {
    await this.upsertOne(realmId, { userId, token, kind }, { $setOnInsert: { iosAppId, lastUpdated: new Date() } });
  }

  /** False when the user had no such token. */
  async remove(realmId: number, userId: number, kind: Kind, token: string): Promise<boolean> {
    return (await this.deleteMany(realmId, { userId, token, kind })) > 0;
  }

  /** Drops the tokens the bouncer no longer has (its deleted_devices, Zulip's send_notifications_to_bouncer). */
  async forget(realmId: number, userId: number, kind: Kind, tokens: string[]): Promise<void> {
    if (tokens.length > 0) await this.deleteMany(realmId, { userId, kind, token: { $in: tokens } });
  }
}
