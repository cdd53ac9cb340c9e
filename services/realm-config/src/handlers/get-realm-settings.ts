import { realmConfig, requireRealm, type Handler } from "@teamchat/shared";
import type { RealmRecordRepository } from "../realms/realm.repository";
import { realmSettings } from "../realms/settings";

export const getRealmSettingsHandler =
  ({ realms }: { realms: RealmRecordRepository }): Handler<typeof realmConfig.getRealmSettings> =>
  async (_params, ctx) =>
    realmSettings((await realms.byId(requireRealm(ctx).id))!);
