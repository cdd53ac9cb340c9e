import type { Connection } from "mongoose";
import { TenantRepository, type IdAllocator, type messaging } from "@teamchat/shared";
import { mutedUserSchema, type MutedUserDoc } from "./muted-user.schema";

const toMutedUser = (r: MutedUserDoc): messaging.MutedUser => ({ id: r.mutedUserId, timestamp: r.timestamp });
const byMuteId = (a: MutedUserDoc, b: MutedUserDoc) => a.muteId - b.muteId;

export class MutedUserRepository extends TenantRepository<MutedUserDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<MutedUserDoc>("MutedUser", mutedUserSchema));
  }

  /** Whom each user muted, oldest first. */
  async ofRealm(realmId: number): Promise<Map<number, messaging.MutedUser[]>> {
    const byUser = new Map<number, messaging.MutedUser[]>();
    for (const row of (await this.find(realmId, {})).sort(byMuteId)) {
      byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), toMutedUser(row)]);
    }
    return byUser;
  }

  /** Whom the user muted, oldest first (Zulip's get_user_mutes). */
  async ofUser(realmId: number, userId: number): Promise<messaging.MutedUser[]> {
    return (await this.find(realmId, { userId })).sort(byMuteId).map(toMutedUser);
  }

  /** Throws a duplicate-key error when the user muted them already. */
  async insert(realmId: number, userId: number, mutedUserId: number, timestamp: number): Promise<void> {
    await this.insertOne({ realmId, userId, mutedUserId, timestamp, muteId: await this.ids.next("muted_user") });
  }

  /** False when the user had not muted them. */
  async remove(realmId: number, userId: number, mutedUserId: number): Promise<boolean> {
    return (await this.deleteMany(realmId, { userId, mutedUserId })) > 0;
  }
}
