import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { EventCache, realmConfigEvents, subscribeEvent, type EventSubscription } from "@teamchat/shared";
import type { ProfileFieldRepository } from "./profile-field.repository";
import type { ProfileFieldDoc } from "./profile-field.schema";

/** Fields kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_FIELDS = 10_000;

/**
 * Each organization's custom profile fields in display order, read by every
 * /register: kept in memory and forgotten by every instance on the
 * custom_profile_fields event that each change publishes (see EventCache).
 */
export class ProfileFieldList {
  private readonly cache: EventCache<ProfileFieldDoc[]>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly fields: ProfileFieldRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, {
      name: "profile-fields",
      maxWeight: MAX_CACHED_FIELDS,
      weigh: (list) => list.length + 1,
    });
    this.sub = subscribeEvent(
      nc,
      realmConfigEvents.customProfileFields,
      ({ realmId }) => this.cache.drop(`${realmId}`),
      { log },
    );
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  inOrder(realmId: number): Promise<ProfileFieldDoc[]> {
    return this.cache.get(`${realmId}`, () => this.fields.inOrder(realmId));
  }
}
