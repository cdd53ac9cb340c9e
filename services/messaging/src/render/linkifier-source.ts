import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EventKeyedCache,
  realmConfig,
  realmConfigEvents,
  requireRealm,
  type BusClient,
  type CallContext,
  compileLinkifiers,
  type CompiledLinkifier,
} from "@teamchat/shared";

/** Linkifiers kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_LINKIFIERS = 20_000;

/**
 * Each organization's linkifiers, compiled, for every render (send, edit,
 * POST /messages/render): loaded from realm-config once, then kept until the
 * realm_linkifiers event every change publishes before its reply (heard by
 * every instance), so a message sent after the change is rendered with it.
 */
export class LinkifierSource {
  private readonly lists: EventKeyedCache<CompiledLinkifier[], typeof realmConfigEvents.realmLinkifiers.payload>;

  constructor(
    private readonly bus: BusClient,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.lists = EventKeyedCache.listsByRealm(
      nc,
      log,
      realmConfigEvents.realmLinkifiers,
      "linkifiers",
      MAX_CACHED_LINKIFIERS,
    );
  }

  get(ctx: CallContext): Promise<CompiledLinkifier[]> {
    return this.lists.get(`${requireRealm(ctx).id}`, async () =>
      compileLinkifiers((await this.bus.request(realmConfig.listLinkifiers, {}, ctx)).linkifiers),
    );
  }

  stop(): void {
    this.lists.stop();
  }
}
