import { realmConfig, requireRealm, type Handler, renderMarkdown } from "@teamchat/shared";
import { realmIconUrl } from "../realms/branding";
import type { RealmRecordRepository } from "../realms/realm.repository";
import { SERVER_VERSION } from "../version.state";

export const getServerSettingsHandler =
  ({ realms }: { realms: RealmRecordRepository }): Handler<typeof realmConfig.getServerSettings> =>
  async (_params, ctx) => {
    const realm = requireRealm(ctx);
    const record = (await realms.byId(realm.id))!;
    return {
      authentication_methods: { password: true, dev: false, email: true, ldap: false },
      external_authentication_methods: [],
      ...SERVER_VERSION,
      push_notifications_enabled: false,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_uri: realm.uri,
      realm_url: realm.uri,
      realm_name: record.name,
      realm_icon: realmIconUrl(realm.id),
      // rendered, as Zulip's get_realm_rendered_description
      realm_description: renderMarkdown(record.description),
      realm_web_public_access_enabled: false,
    };
  };
