import type { Connection, Model } from "mongoose";
import { IdAllocator, isDuplicateKey } from "@teamchat/shared";
import { realmSchema, type RealmDoc } from "./realm.schema";

/**
 * The organizations themselves. Not a TenantRepository: this collection is the
 * tenant directory, and resolving a Host (bySubdomain) or creating an
 * organization (ensure) happens before there is a realm id to scope by. So it
 * keeps its own private model behind domain-named methods; byId is the one
 * read scoped to a realm. An organization's record never changes once made
 * (no operation edits it yet), and nearly every request reads it: found
 * records are kept in memory. Whoever adds an edit must make every instance
 * forget its copy.
 */
export class RealmRecordRepository {
  readonly #model: Model<RealmDoc>;
  readonly #byId = new Map<number, RealmDoc>();
  readonly #bySubdomain = new Map<string, RealmDoc>();

  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    this.#model = conn.model<RealmDoc>("Realm", realmSchema);
  }

  /** Builds the indexes realm.schema.ts declares. */
  async init(): Promise<void> {
    await this.#model.createCollection().catch(() => undefined);
    await this.#model.syncIndexes();
  }

  async bySubdomain(subdomain: string): Promise<RealmDoc | null> {
    return (
      this.#bySubdomain.get(subdomain) ?? this.#keep(await this.#model.findOne({ subdomain }).lean<RealmDoc>().exec())
    );
  }

  async byId(realmId: number): Promise<RealmDoc | null> {
    return this.#byId.get(realmId) ?? this.#keep(await this.#model.findOne({ realmId }).lean<RealmDoc>().exec());
  }

  /** Not-found is not kept: the organization may be created later. */
  #keep(realm: RealmDoc | null): RealmDoc | null {
    if (realm) {
      this.#byId.set(realm.realmId, realm);
      this.#bySubdomain.set(realm.subdomain, realm);
    }
    return realm;
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
