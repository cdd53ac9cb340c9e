import { createHash } from "node:crypto";
import { GRAVATAR_URL } from "@teamchat/shared";

/**
 * Zulip's get_realm_icon_url for an organization without an uploaded icon
 * (icon_source "G", ENABLE_GRAVATAR): the Gravatar identicon of its id.
 */
export const realmIconUrl = (realmId: number): string =>
  `${GRAVATAR_URL}avatar/${createHash("md5").update(String(realmId)).digest("hex")}?d=identicon`;

/** Zulip's get_realm_logo_url without an uploaded logo: the default logo its web app serves. */
export const DEFAULT_LOGO_URL = "/static/images/logo/zulip-org-logo.svg?version=0";
