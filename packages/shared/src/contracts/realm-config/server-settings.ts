import { z } from "zod";
import { defineContract } from "../../contract";

export const getServerSettings = defineContract({
  subject: "realm-config.server_settings.get",
  http: { method: "GET", path: "/server_settings", auth: "none" },
  params: z.object({}),
  reply: z.object({
    authentication_methods: z.record(z.string(), z.boolean()),
    external_authentication_methods: z.array(z.object({})),
    zulip_feature_level: z.number().int(),
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
