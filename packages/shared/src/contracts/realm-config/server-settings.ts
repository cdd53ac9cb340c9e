import { z } from "zod";
import { defineContract } from "../../contract";
import { int } from "../common";

/** Zulip's external_authentication_methods entry (none are configured here, so the list is empty). */
const externalAuthenticationMethodSchema = z.strictObject({
  name: z.string(),
  display_name: z.string(),
  display_icon: z.string().nullable(),
  login_url: z.string(),
  signup_url: z.string(),
});

export const getServerSettings = defineContract({
  subject: "realm-config.server_settings.get",
  http: { method: "GET", path: "/server_settings", auth: "none" },
  params: z.object({}),
  reply: z.strictObject({
    /** the backends this server reports (Zulip's deprecated map, one key per backend) */
    authentication_methods: z.strictObject({
      password: z.boolean(),
      dev: z.boolean(),
      email: z.boolean(),
      ldap: z.boolean(),
    }),
    external_authentication_methods: z.array(externalAuthenticationMethodSchema),
    zulip_feature_level: int,
    zulip_version: z.string(),
    zulip_merge_base: z.string(),
    push_notifications_enabled: z.boolean(),
    is_incompatible: z.boolean(),
    email_auth_enabled: z.boolean(),
    require_email_format_usernames: z.boolean(),
    realm_uri: z.string(),
    realm_url: z.string(),
    realm_name: z.string(),
    realm_icon: z.string(),
    realm_description: z.string(),
    realm_web_public_access_enabled: z.boolean(),
  }),
});
