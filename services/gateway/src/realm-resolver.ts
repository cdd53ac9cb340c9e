import { realmConfig, type BusClient, type RealmRef } from "@teamchat/shared";
import { retryingRead } from "./retrying-read";

const TTL_MS = 60_000;

/** Host → organization, asked of realm-config and remembered for a minute. */
export class RealmResolver {
  private readonly cache = new Map<string, { realm: RealmRef; expires: number }>();

  constructor(private readonly bus: BusClient) {}

  async resolve(host: string, requestId: string): Promise<RealmRef> {
    const hit = this.cache.get(host);
    if (hit && hit.expires > Date.now()) return hit.realm;
    const realm = await retryingRead(() =>
      this.bus.request(realmConfig.resolveRealm, { host }, { realm: null, actor: null, requestId }),
    );
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(host, { realm, expires: Date.now() + TTL_MS });
    return realm;
  }
}
