import { badRequest, realmConfig, type Handler } from "@teamchat/shared";
import type { RealmHosts } from "../realms/hosts";
import { profileSettings } from "../realms/profile-settings";
import type { RealmRecordRepository } from "../realms/realm.repository";

export const getRealmMailContextHandler =
  ({
    realms,
    hosts,
  }: {
    realms: RealmRecordRepository;
    hosts: RealmHosts;
  }): Handler<typeof realmConfig.getRealmMailContext> =>
  async ({ realm_id }) => {
    const realm = await realms.byId(realm_id);
    if (!realm) throw badRequest("There is no organization at this address");
    return {
      realm: hosts.ref(realm),
      message_content_allowed_in_email_notifications:
        profileSettings(realm).message_content_allowed_in_email_notifications,
    };
  };
