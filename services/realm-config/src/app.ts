import { IdAllocator, realmConfig, type RunningService, type ServiceDeps } from "@teamchat/shared";
import { createRealmHandler } from "./handlers/create-realm";
import { getServerSettingsHandler } from "./handlers/get-server-settings";
import { resolveRealmHandler } from "./handlers/resolve-realm";
import { RealmHosts } from "./realms/hosts";
import { RealmRecordRepository } from "./realms/realm.repository";

export async function buildRealmConfig(deps: ServiceDeps): Promise<RunningService> {
  const realms = new RealmRecordRepository(deps.db, new IdAllocator(deps.db));
  await realms.init();
  const hosts = new RealmHosts(deps.config);
  deps.server
    .handle(realmConfig.resolveRealm, resolveRealmHandler(realms, hosts))
    .handle(realmConfig.createRealm, createRealmHandler(realms, hosts))
    .handle(realmConfig.getServerSettings, getServerSettingsHandler(realms));
  return {};
}
