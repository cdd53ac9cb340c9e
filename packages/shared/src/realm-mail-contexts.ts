import type { BusClient, CallContext } from "./bus";
import { getRealmMailContext, type RealmMailContext } from "./contracts/realm-config/mail-context";

/** An organization's address and mail setting are asked again after this. */
const KEPT_MS = 30_000;

/**
 * Organizations by id for work done outside any request (missed-message
 * decisions and emails), asked of realm-config and kept briefly; `context`
 * makes the call context other services' handlers need for the organization.
 */
export class RealmMailContexts {
  private readonly byId = new Map<number, { at: number; value: Promise<RealmMailContext> }>();

  constructor(private readonly bus: BusClient) {}

  get(realmId: number, requestId: string): Promise<RealmMailContext> {
    const kept = this.byId.get(realmId);
    if (kept && Date.now() - kept.at < KEPT_MS) return kept.value;
    const value = this.bus.request(getRealmMailContext, { realm_id: realmId }, { realm: null, actor: null, requestId });
    this.byId.set(realmId, { at: Date.now(), value });
    value.catch(() => this.byId.delete(realmId));
    return value;
  }

  async context(realmId: number, requestId: string): Promise<CallContext> {
    return { realm: (await this.get(realmId, requestId)).realm, actor: null, requestId };
  }
}
