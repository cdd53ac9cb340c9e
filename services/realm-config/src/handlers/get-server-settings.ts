import { realmConfig, requireRealm, type Handler, ZULIP_FEATURE_LEVEL, ZULIP_VERSION } from "@teamchat/shared";
import type { RealmRecordRepository } from "../realms/realm.repository";

export const getServerSettingsHandler =
  (realms: RealmRecordRepository): Handler<typeof realmConfig.getServerSettings> =>
  async (_params, ctx) => {
    const ref = requireRealm(ctx);
    const realm = (await realms.byId(ref.id))!;
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
      realm_uri: ref.uri,
      realm_url: ref.uri,
      realm_name: realm.name,
      realm_icon: `${ref.uri}/static/images/logo/zulip-icon-128x128.png`,
      realm_description: realm.description,
      realm_web_public_access_enabled: false,
    };
  };
