import { getNotificationRecipients, type NotificationRecipient } from "./contracts/identity/notification-recipients";
import type { BusClient } from "./bus";
import type { RealmMailContexts } from "./realm-mail-contexts";
import { Coalescer } from "./coalescer";

interface Lookup {
  userIds: number[];
  requestId: string;
}

/**
 * Identity's notification recipients for work done outside any request. The
 * missed-message decisions and the mailer ask for a few users per queued
 * item; under load the items of an organization in flight at once share one
 * request instead of one each, so that notifying keeps up with sending
 * without taking identity's and the database's time from it.
 */
export class NotificationRecipients {
  private readonly rounds: Coalescer<Lookup, NotificationRecipient[]>;

  constructor(bus: BusClient, realms: RealmMailContexts) {
    this.rounds = new Coalescer(async (realm, lookups) => {
      const userIds = [...new Set(lookups.flatMap((l) => l.userIds))];
      const { users } = await bus.request(
        getNotificationRecipients,
        { user_ids: userIds },
        await realms.context(Number(realm), lookups[0]!.requestId),
      );
      const byId = new Map(users.map((u) => [u.user_id, u]));
      return lookups.map((l) => l.userIds.flatMap((id) => byId.get(id) ?? []));
    });
  }

  /** These users of the organization, in the order asked; unknown ids are left out. */
  of(realmId: number, userIds: number[], requestId: string): Promise<NotificationRecipient[]> {
    return this.rounds.run(String(realmId), { userIds, requestId });
  }
}
