import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EventCache,
  realmConfig,
  realmConfigEvents,
  requireRealm,
  subscribeEvent,
  type BusClient,
  type CallContext,
  type EventSubscription,
} from "@teamchat/shared";

/** Organizations whose settings an instance keeps. */
const MAX_CACHED_REALMS = 10_000;

/**
 * What messaging asks realm-config: the organization's settings and channel
 * folders. Settings are read by nearly every request and kept per
 * organization; every instance drops them on the realm event PATCH /realm
 * publishes before its reply (see EventCache), so a change applies to the
 * next request.
 */
export class RealmSettingsSource {
  private readonly settings: EventCache<realmConfig.RealmSettings>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly bus: BusClient,
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

  get(ctx: CallContext): Promise<realmConfig.RealmSettings> {
    return this.settings.get(`${requireRealm(ctx).id}`, () => this.bus.request(realmConfig.getRealmSettings, {}, ctx));
  }

  async folderExists(ctx: CallContext, folderId: number): Promise<boolean> {
    const { channel_folders } = await this.bus.request(realmConfig.listChannelFolders, { include_archived: true }, ctx);
    return channel_folders.some((f) => f.id === folderId);
  }
}
