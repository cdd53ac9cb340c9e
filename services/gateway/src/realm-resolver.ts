import { realmConfig, type BusClient, type RealmRef } from "@teamchat/shared";
import { retryingRead } from "./retrying-read";

const TTL_MS = 60_000;

/**
 * Host → organization, asked of realm-config and remembered for a minute;
 * requests that arrive while it is asked share the answer (after a restart
 * every client of an organization reconnects at once).
 */
export class RealmResolver {
  private readonly cache = new Map<string, { realm: RealmRef; expires: number }>();
  private readonly asking = new Map<string, Promise<RealmRef>>();

  constructor(private readonly bus: BusClient) {}

  async resolve(host: string, requestId: string): Promise<RealmRef> {
    const hit = this.cache.get(host);
    if (hit && hit.expires > Date.now()) return hit.realm;
    let asked = this.asking.get(host);
    if (!asked) {
      asked = this.ask(host, requestId).finally(() => this.asking.delete(host));
      this.asking.set(host, asked);
    }
    return asked;
  }

  private async ask(host: string, requestId: string): Promise<RealmRef> {
    const realm = await retryingRead(() =>
      this.bus.request(realmConfig.resolveRealm, { host }, { realm: null, actor: null, requestId }),
    );
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(host, { realm, expires: Date.now() + TTL_MS });
    return realm;
  }
}
