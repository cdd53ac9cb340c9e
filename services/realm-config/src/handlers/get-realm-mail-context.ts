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
    const settings = profileSettings(realm);
    return {
      realm: hosts.ref(realm),
      message_content_allowed_in_email_notifications: settings.message_content_allowed_in_email_notifications,
      digest_emails_enabled: settings.digest_emails_enabled,
      digest_weekday: settings.digest_weekday,
    };
  };
