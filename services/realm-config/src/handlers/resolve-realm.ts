import { badRequest, realmConfig, type Handler } from "@teamchat/shared";
import type { RealmHosts } from "../realms/hosts";
import { profileSettings } from "../realms/profile-settings";
import type { RealmRecordRepository } from "../realms/realm.repository";

export const resolveRealmHandler =
  ({ realms, hosts }: { realms: RealmRecordRepository; hosts: RealmHosts }): Handler<typeof realmConfig.resolveRealm> =>
  async ({ host }) => {
    const realm = await realms.bySubdomain(hosts.subdomainOf(host));
    if (!realm) throw badRequest("There is no organization at this address");
    return hosts.ref(realm);
  };

export const realmByIdHandler =
  ({ realms, hosts }: { realms: RealmRecordRepository; hosts: RealmHosts }): Handler<typeof realmConfig.realmById> =>
  async ({ realm_id }) => {
    const realm = await realms.byId(realm_id);
    if (!realm) throw badRequest("Invalid organization");
    return hosts.ref(realm);
  };

export const listRealmsHandler =
  ({ realms, hosts }: { realms: RealmRecordRepository; hosts: RealmHosts }): Handler<typeof realmConfig.listRealms> =>
  async () => ({
    realms: (await realms.all()).map((realm) => ({
      realm: hosts.ref(realm),
      date_created: realm.dateCreated.getTime() / 1000,
      org_type: profileSettings(realm).org_type,
    })),
  });
