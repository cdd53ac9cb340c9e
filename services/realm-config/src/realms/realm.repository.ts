import type { NatsConnection } from "@nats-io/transport-node";
import type { Connection, Model } from "mongoose";
import { EventCache, IdAllocator, isDuplicateKey, syncCollection } from "@teamchat/shared";
import { realmSchema, type RealmDoc } from "./realm.schema";

/** Organizations whose records an instance keeps. */
const MAX_CACHED_REALMS = 10_000;

/**
 * The organizations themselves. Not a TenantRepository: this collection is the
 * tenant directory, and resolving a Host (bySubdomain) or creating an
 * organization (ensure) happens before there is a realm id to scope by. So it
 * keeps its own private model behind domain-named methods; byId is the one
 * read scoped to a realm. Nearly every request reads a record, so found
 * records are kept in memory (an EventCache by realm id; a subdomain never
 * changes, so its realm id is kept as is); the app makes every instance
 * forget() a record on the realm event its changes publish.
 */
export class RealmRecordRepository {
  readonly #model: Model<RealmDoc>;
  readonly #records: EventCache<RealmDoc | null>;
  readonly #idBySubdomain = new Map<string, number>();

  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
    nc: NatsConnection,
  ) {
    this.#model = conn.model<RealmDoc>("Realm", realmSchema);
    this.#records = new EventCache(nc, { name: "realms", maxWeight: MAX_CACHED_REALMS, weigh: () => 1 });
  }

  /** Builds the indexes realm.schema.ts declares. */
  init(): Promise<void> {
    return syncCollection(this.#model);
  }

  /** Every organization, by id (few per server: the push notification service is told of each). */
  all(): Promise<RealmDoc[]> {
    return this.#model.find({}).sort({ realmId: 1 }).lean<RealmDoc[]>().exec();
  }

  async bySubdomain(subdomain: string): Promise<RealmDoc | null> {
    const known = this.#idBySubdomain.get(subdomain);
    if (known !== undefined) return this.byId(known);
    const realm = await this.#model.findOne({ subdomain }).lean<RealmDoc>().exec();
    // Not-found is not kept: the organization may be created later.
    if (realm) this.#idBySubdomain.set(subdomain, realm.realmId);
    return realm;
  }

  async byId(realmId: number): Promise<RealmDoc | null> {
    const realm = await this.#records.get(`${realmId}`, () => this.#model.findOne({ realmId }).lean<RealmDoc>().exec());
    if (!realm) this.#records.drop(`${realmId}`);
    return realm;
  }

  /** Sets the organization's name, description and settings given (keyed by Zulip's names). */
  async change(
    realmId: number,
    changes: { name?: string; description?: string; settings: Record<string, unknown> },
  ): Promise<void> {
    const set: Record<string, unknown> = Object.fromEntries(
      Object.entries(changes.settings).map(([k, v]) => [`settings.${k}`, v]),
    );
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.description !== undefined) set.description = changes.description;
    await this.#model.updateOne({ realmId }, { $set: set }).exec();
    this.forget(realmId);
  }

  /** Drops this instance's copy of the record: the next read loads it again. */
  forget(realmId: number): void {
    this.#records.drop(`${realmId}`);
  }

  /** Creates the realm unless the subdomain is taken; returns the stored one either way. */
  async ensure(subdomain: string, name: string): Promise<{ realm: RealmDoc; created: boolean }> {
    const existing = await this.bySubdomain(subdomain);
    if (existing) return { realm: existing, created: false };
    const realm: RealmDoc = {
      realmId: await this.ids.next("realm"),
      subdomain,
      name,
      description: "",
      dateCreated: new Date(),
      settings: {},
    };
    try {
      await this.#model.create(realm);
      return { realm, created: true };
    } catch (err) {
      // Another instance created it between our lookup and insert (the unique subdomain index).
      if (!isDuplicateKey(err)) throw err;
      return { realm: (await this.bySubdomain(subdomain))!, created: false };
    }
  }
}
