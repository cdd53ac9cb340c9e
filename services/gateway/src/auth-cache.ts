import { createHash } from "node:crypto";
import type { Actor } from "@teamchat/shared";

interface Entry {
  actor: Actor;
  expires: number;
}

const MAX_ENTRIES = 50_000;

/**
 * Briefly remembers checked credentials so that not every request asks
 * identity. Entries are keyed by a hash of the credentials (the key itself is
 * not kept) and dropped when identity announces a key change or deactivation.
 */
export class AuthCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byUser = new Map<number, Set<string>>();

  constructor(private readonly ttlMs: number) {}

  static keyOf(realmId: number, email: string, apiKey: string): string {
    return createHash("sha256").update(`${realmId}\0${email.toLowerCase()}\0${apiKey}`).digest("base64");
  }

  get(key: string, now = Date.now()): Actor | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires > now) return e.actor;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, actor: Actor, now = Date.now()): void {
    if (this.ttlMs === 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.clear();
    this.entries.set(key, { actor, expires: now + this.ttlMs });
    let keys = this.byUser.get(actor.userId);
    if (!keys) this.byUser.set(actor.userId, (keys = new Set()));
    keys.add(key);
  }

  dropUser(userId: number): void {
    for (const k of this.byUser.get(userId) ?? []) this.entries.delete(k);
    this.byUser.delete(userId);
  }

  clear(): void {
    this.entries.clear();
    this.byUser.clear();
  }
}
