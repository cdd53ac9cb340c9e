import type { Connection } from "mongoose";
import { TenantRepository, type IdAllocator } from "@teamchat/shared";
import { deviceSchema, type DeviceDoc } from "./device.schema";

export class DeviceRepository extends TenantRepository<DeviceDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<DeviceDoc>("Device", deviceSchema));
  }

  /** The user's devices, oldest first. */
  async ofUser(realmId: number, userId: number): Promise<DeviceDoc[]> {
    return (await this.findOfUser(realmId, "userId", userId)).sort((a, b) => a.deviceId - b.deviceId);
  }

  async insert(realmId: number, userId: number): Promise<DeviceDoc> {
    return this.insertOne({ realmId, userId, deviceId: await this.ids.next("device") });
  }

  /** Removes the user's device; false when they have none of that id (Zulip's check_device_id). */
  async remove(realmId: number, userId: number, deviceId: number): Promise<boolean> {
    return (await this.deleteMany(realmId, { userId, deviceId })) > 0;
  }
}
