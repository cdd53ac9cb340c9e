import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { BusClient } from "./bus/client";
import { requireRealm, type CallContext } from "./bus/context";
import { getRealmSettings, type RealmSettings } from "./contracts/realm-config";
import { EventCache } from "./event-cache";
import { realmConfigEvents } from "./events";
import { subscribeEvent, type EventSubscription } from "./events/feed";

/** Organizations whose settings an instance keeps. */
const MAX_CACHED_REALMS = 10_000;

/**
 * An organization's settings as realm-config answers them, kept per
 * organization: read by nearly every request. Every instance drops them on
 * the realm event PATCH /realm publishes before its reply (see EventCache),
 * so a change applies to the next request.
 */
export class RealmSettingsCache {
  private readonly settings: EventCache<RealmSettings>;
  private readonly sub: EventSubscription;

  constructor(
    protected readonly bus: BusClient,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.settings = new EventCache(nc, { name: "realm-settings", maxWeight: MAX_CACHED_REALMS, weigh: () => 1 });
    this.sub = subscribeEvent(nc, realmConfigEvents.realmUpdated, ({ realmId }) => this.settings.drop(`${realmId}`), {
      log,
    });
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  get(ctx: CallContext): Promise<RealmSettings> {
    return this.settings.get(`${requireRealm(ctx).id}`, () => this.bus.request(getRealmSettings, {}, ctx));
  }
}
