import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import type { Settings } from "../users/settings";
import { realmUserDefaultSchema, type RealmUserDefaultDoc } from "./realm-user-default.schema";

export class RealmUserDefaultRepository extends TenantRepository<RealmUserDefaultDoc> {
  constructor(conn: Connection) {
    super(conn.model<RealmUserDefaultDoc>("RealmUserDefault", realmUserDefaultSchema));
  }

  /** The organization's changed defaults ({} until an administrator changes one). */
  async byRealm(realmId: number): Promise<Partial<Settings>> {
    return (await this.findOne(realmId, {}))?.settings ?? {};
  }

  /** Sets these defaults (the document is made on the first change). */
  async change(realmId: number, settings: Partial<Settings>): Promise<void> {
    const paths = Object.fromEntries(Object.entries(settings).map(([name, value]) => [`settings.${name}`, value]));
    await this.upsertOne(realmId, {}, { $set: paths });
  }
}
