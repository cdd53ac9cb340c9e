/** What this server tells clients it is: Zulip version and API feature level. */

export const ZULIP_VERSION = "11.0-teamchat";

export const ZULIP_FEATURE_LEVEL = 417;
