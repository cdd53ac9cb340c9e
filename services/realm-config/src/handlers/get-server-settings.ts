import { realmConfig, requireRealm, type Handler, ZULIP_FEATURE_LEVEL, ZULIP_VERSION } from "@teamchat/shared";
import type { RealmRecordRepository } from "../realms/realm.repository";

export const getServerSettingsHandler =
  (realms: RealmRecordRepository): Handler<typeof realmConfig.getServerSettings> =>
  async (_params, ctx) => {
    const realm = requireRealm(ctx);
    const record = (await realms.byId(realm.id))!;
    return {
      authentication_methods: { password: true, dev: false, email: true, ldap: false },
      external_authentication_methods: [],
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_VERSION,
      push_notifications_enabled: false,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_uri: realm.uri,
      realm_url: realm.uri,
      realm_name: record.name,
      realm_icon: `${realm.uri}/static/images/logo/zulip-icon-128x128.png`,
      realm_description: record.description,
      realm_web_public_access_enabled: false,
    };
  };
