import { realmConfig, type Handler } from "@teamchat/shared";
import type { RealmHosts } from "../realms/hosts";
import type { RealmRecordRepository } from "../realms/realm.repository";

export const createRealmHandler =
  ({ realms, hosts }: { realms: RealmRecordRepository; hosts: RealmHosts }): Handler<typeof realmConfig.createRealm> =>
  async ({ subdomain, name }) => {
    const { realm, created } = await realms.ensure(subdomain, name);
    return { realm: hosts.ref(realm), created };
  };
