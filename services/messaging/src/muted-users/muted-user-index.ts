import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { messagingEvents, type messaging } from "@teamchat/shared";
import { PerUserLists } from "../users/per-user-lists";
import type { MutedUserRepository } from "./muted-user.repository";

/**
 * Whom each user muted, per organization, in memory (kept current by
 * muted_users events): sends mark a muted sender's messages read for the
 * users who muted them, and read receipts leave muted and muting users out,
 * without reading the database. Writes go to `stored`.
 */
export class MutedUserIndex extends PerUserLists<messaging.MutedUser, { muted_users: messaging.MutedUser[] }> {
  constructor(
    readonly stored: MutedUserRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    super(
      nc,
      log,
      messagingEvents.mutedUsersChanged,
      (realmId) => stored.ofRealm(realmId),
      (e) => e.muted_users,
    );
  }

  /** The users who muted this one. */
  async mutersOf(realmId: number, userId: number): Promise<Set<number>> {
    const muters = new Set<number>();
    for (const [muter, muted] of await this.of(realmId)) if (muted.some((m) => m.id === userId)) muters.add(muter);
    return muters;
  }

  /** The users this one muted. */
  async mutedBy(realmId: number, userId: number): Promise<Set<number>> {
    return new Set((await this.ofUser(realmId, userId)).map((m) => m.id));
  }
}
