import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { EventKeyedCache, provideState, realmConfig, realmConfigEvents, requireRealm } from "@teamchat/shared";
import { linkifierView } from "./linkifier-view";
import type { LinkifierRepository } from "./linkifier.repository";

/** Linkifiers kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_LINKIFIERS = 20_000;

/**
 * register's realm_linkifiers (Zulip's fetch_initial_state_data): empty for
 * clients without the linkifier_url_template capability, which would read the
 * templates as format strings; and the legacy realm_filters, always empty
 * since feature level 176 for the same reason.
 */
export function linkifiersStates({
  linkifiers,
  nc,
  log,
}: {
  linkifiers: LinkifierRepository;
  nc: NatsConnection;
  log: Logger;
}) {
  // from memory: every register of a capable client reads them; dropped on the realm_linkifiers event of every change
  const lists = EventKeyedCache.listsByRealm<
    realmConfig.RealmLinkifier,
    typeof realmConfigEvents.realmLinkifiers.payload
  >(nc, log, realmConfigEvents.realmLinkifiers, "linkifier-views", MAX_CACHED_LINKIFIERS);
  const inOrder = (realmId: number) =>
    lists.get(`${realmId}`, async () => (await linkifiers.inOrder(realmId)).map(linkifierView));
  const providers = [
    provideState(realmConfig.realmLinkifiersPart, async (params, ctx) => ({
      realm_linkifiers:
        params.client_capabilities.linkifier_url_template === true ? await inOrder(requireRealm(ctx).id) : [],
    })),
    provideState(realmConfig.realmFiltersPart, async () => ({ realm_filters: [] })),
  ];
  return { providers, stop: () => lists.stop() };
}
