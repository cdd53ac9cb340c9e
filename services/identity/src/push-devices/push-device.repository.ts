import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { pushDeviceSchema, type PushDeviceDoc } from "./push-device.schema";

type Registration = Omit<PushDeviceDoc, "realmId" | "userId" | "pushAccountId" | "updatedAt">;

export class PushDeviceRepository extends TenantRepository<PushDeviceDoc> {
  constructor(conn: Connection) {
    super(conn.model<PushDeviceDoc>("PushDevice", pushDeviceSchema));
  }

  ofUser(realmId: number, userId: number): Promise<PushDeviceDoc[]> {
    return this.find(realmId, { userId });
  }

  /** Stores the registration, replacing the one of the same push_account_id (one write: concurrent requests cannot make two). */
  async register(realmId: number, userId: number, pushAccountId: number, registration: Registration): Promise<void> {
    await this.upsertOne(realmId, { userId, pushAccountId }, { $set: { ...registration, updatedAt: new Date() } });
  }
}
