import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { pushDeviceSchema, type PushDeviceDoc } from "./push-device.schema";

type Registration = Pick<
  PushDeviceDoc,
  "tokenKind" | "pushPublicKey" | "bouncerPublicKey" | "encryptedPushRegistration"
>;

/** One registration as the bouncer answered it; a newer one of the same push_account_id is left alone. */
interface Forwarded {
  pushAccountId: number;
  encryptedPushRegistration: string;
}

export class PushDeviceRepository extends TenantRepository<PushDeviceDoc> {
  constructor(conn: Connection) {
    super(conn.model<PushDeviceDoc>("PushDevice", pushDeviceSchema));
  }

  ofUser(realmId: number, userId: number): Promise<PushDeviceDoc[]> {
    return this.findOfUser(realmId, "userId", userId);
  }

  /** The user's registrations the bouncer accepted, or the one of this push_account_id (Zulip's bouncer_device_id__isnull=False). */
  active(realmId: number, userId: number, pushAccountId?: number): Promise<PushDeviceDoc[]> {
    return this.find(realmId, {
      userId,
      bouncerDeviceId: { $ne: null },
      ...(pushAccountId === undefined ? {} : { pushAccountId }),
    });
  }

  /**
   * Stores the registration, replacing the one of the same push_account_id
   * (one write: concurrent requests cannot make two); pending until the
   * bouncer accepts it.
   */
  async register(realmId: number, userId: number, pushAccountId: number, registration: Registration): Promise<void> {
    await this.upsertOne(
      realmId,
      { userId, pushAccountId },
      { $set: { ...registration, bouncerDeviceId: null, errorCode: null, updatedAt: new Date() } },
    );
  }

  /** The bouncer accepted the registration: false when a newer one replaced it meanwhile. */
  async activate(realmId: number, userId: number, forwarded: Forwarded, bouncerDeviceId: number): Promise<boolean> {
    return (
      (await this.updateOne(realmId, { userId, ...forwarded }, { $set: { bouncerDeviceId, errorCode: null } })) > 0
    );
  }

  /** The bouncer refused the registration for good (Zulip's handle_registration_to_bouncer_failure). */
  async fail(realmId: number, userId: number, forwarded: Forwarded, errorCode: string): Promise<boolean> {
    return (await this.updateOne(realmId, { userId, ...forwarded }, { $set: { errorCode } })) > 0;
  }

  /** Drops the registrations the bouncer no longer has (its delete_device_ids). */
  async forget(realmId: number, userId: number, bouncerDeviceIds: number[]): Promise<void> {
    if (bouncerDeviceIds.length > 0)
      await this.deleteMany(realmId, { userId, bouncerDeviceId: { $in: bouncerDeviceIds } });
  }
}
