import type { NatsConnection } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";
import type { KV, KvEntry } from "@nats-io/kv";
import { configureThroughElection, openBucket } from "@teamchat/shared";
import type { Logger } from "pino";
import type { PresenceRecord, PresenceTimes } from "./presence";

/** The longest history a client asks for (Zulip's web app: PRESENCE_HISTORY_LIMIT_DAYS_FOR_WEB_APP); older reports expire. */
const KEPT_DAYS = 365;
const BUCKET = "presence";
/** Written once by each instance as it starts: seeing it come back means the copy holds everything before it. */
const SYNC_KEY = "sync";

const keyOf = (realmId: number, userId: number) => `${realmId}.${userId}`;

const decoder = new TextDecoder();

/** A stored report, or undefined for a deleted entry. */
const recordOf = (entry: KvEntry): PresenceRecord | undefined =>
  entry.operation === "PUT"
    ? { ...(JSON.parse(decoder.decode(entry.value)) as PresenceTimes), revision: entry.revision }
    : undefined;

/**
 * Every user's presence in a NATS JetStream KV bucket (`presence`, one entry
 * per `<realm>.<user>`), so that every identity instance reads and writes the
 * same reports; the entry's revision, increasing over the whole bucket, is
 * Zulip's last_update_id. Presence is read by every client every minute, so
 * each instance keeps a copy of the bucket in memory, fed by a KV watch (a
 * write is applied to the writer's copy at once, the others within the watch's
 * delivery). Writes are compare-and-set on the revision, so that two
 * instances reporting the same user together decide once.
 */
export class PresenceStore {
  private readonly byRealm = new Map<number, Map<number, PresenceRecord>>();
  private stopped = false;

  private constructor(
    private readonly kv: KV,
    private readonly log: Logger,
  ) {}

  /** Opens the bucket (on `replicas` nodes) and returns once this instance's copy holds every report written before. */
  static async open(nc: NatsConnection, log: Logger, replicas: number): Promise<PresenceStore> {
    // the sync marker is written at once: the bucket needs its leader (openBucket waits for it)
    const kv = await openBucket(jetstream(nc), BUCKET, { ttl: KEPT_DAYS * 24 * 60 * 60 * 1000, replicas });
    const store = new PresenceStore(kv, log);
    await store.watch();
    return store;
  }

  private async watch(): Promise<void> {
    // asked again through a NATS restart as the service starts (a second marker changes nothing)
    const entries = await configureThroughElection(() => this.kv.watch({ key: ">" }));
    const marker = await configureThroughElection(() => this.kv.put(SYNC_KEY, ""));
    let synced!: () => void;
    const ready = new Promise<void>((resolve) => (synced = resolve));
    void (async () => {
      for await (const entry of entries) {
        if (entry.key === SYNC_KEY) {
          if (entry.revision >= marker) synced();
        } else {
          this.apply(entry);
        }
      }
      if (!this.stopped)
        this.log.error("presence watch ended: this instance's presence copy is no longer kept current");
    })();
    this.stopWatch = () => entries.stop();
    await ready;
  }

  private stopWatch = () => {};

  stop(): void {
    this.stopped = true;
    this.stopWatch();
  }

  private apply(entry: KvEntry): void {
    const [realmId, userId] = entry.key.split(".").map(Number);
    if (!Number.isInteger(realmId) || !Number.isInteger(userId)) return;
    const realm = this.realmRecords(realmId!);
    const record = recordOf(entry);
    if (!record) realm.delete(userId!);
    // the writer applied its own write already; the watch may bring it after a newer one
    else if ((realm.get(userId!)?.revision ?? 0) < record.revision) realm.set(userId!, record);
  }

  private realmRecords(realmId: number): Map<number, PresenceRecord> {
    let realm = this.byRealm.get(realmId);
    if (!realm) this.byRealm.set(realmId, (realm = new Map()));
    return realm;
  }

  /** The organization's reports by user id. */
  realm(realmId: number): ReadonlyMap<number, PresenceRecord> {
    return this.byRealm.get(realmId) ?? new Map();
  }

  get(realmId: number, userId: number): PresenceRecord | undefined {
    return this.byRealm.get(realmId)?.get(userId);
  }

  /**
   * Applies `decide` to the user's stored presence and writes what it returns
   * (null: nothing), retrying on a newer report written meanwhile by another
   * instance. Returns what was written, or null.
   */
  async update(
    realmId: number,
    userId: number,
    decide: (current: PresenceTimes | undefined) => PresenceTimes | null,
  ): Promise<PresenceRecord | null> {
    const key = keyOf(realmId, userId);
    let current: PresenceRecord | undefined = this.get(realmId, userId);
    for (let attempt = 0; ; attempt++) {
      const next = decide(current);
      if (!next) return null;
      const times = { activeAt: next.activeAt, connectedAt: next.connectedAt };
      try {
        const revision = current
          ? await this.kv.update(key, JSON.stringify(times), current.revision)
          : await this.kv.create(key, JSON.stringify(times));
        return this.written(realmId, userId, { ...times, revision });
      } catch (err) {
        if (attempt >= 10) throw err;
        const entry = await this.kv.get(key);
        current = entry ? recordOf(entry) : undefined;
      }
    }
  }

  /** Replaces the user's presence whatever it was (presence_enabled turned on or off). */
  async replace(realmId: number, userId: number, times: PresenceTimes): Promise<PresenceRecord> {
    const value = { activeAt: times.activeAt, connectedAt: times.connectedAt };
    const revision = await this.kv.put(keyOf(realmId, userId), JSON.stringify(value));
    return this.written(realmId, userId, { ...value, revision });
  }

  private written(realmId: number, userId: number, record: PresenceRecord): PresenceRecord {
    const realm = this.realmRecords(realmId);
    if ((realm.get(userId)?.revision ?? 0) < record.revision) realm.set(userId, record);
    return record;
  }
}
