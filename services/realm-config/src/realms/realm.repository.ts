import type { Connection } from "mongoose";
import { IdAllocator, RealmRepository, isDuplicateKey } from "@teamchat/shared";
import { realmSchema, type RealmDoc } from "./realm.schema";

export class RealmRecordRepository extends RealmRepository<RealmDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<RealmDoc>("Realm", realmSchema));
  }

  /** Realms are the tenants themselves, so this lookup is the one filter without a realmId. */
  bySubdomain(subdomain: string): Promise<RealmDoc | null> {
    return this.model.findOne({ subdomain }).lean<RealmDoc>().exec();
  }

  byId(realmId: number): Promise<RealmDoc | null> {
    return this.findOne({ realmId });
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
      await this.model.create(realm);
      return { realm, created: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return { realm: (await this.bySubdomain(subdomain))!, created: false };
    }
  }
}
