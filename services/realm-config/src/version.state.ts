import { provideState, realmConfig, ZULIP_FEATURE_LEVEL, ZULIP_VERSION } from "@teamchat/shared";

/** What this server says it is, in register and GET /server_settings alike (not a fork: merge base = version). */
export const SERVER_VERSION = {
  zulip_version: ZULIP_VERSION,
  zulip_feature_level: ZULIP_FEATURE_LEVEL,
  zulip_merge_base: ZULIP_VERSION,
};

export const versionState = provideState(realmConfig.versionPart, async () => SERVER_VERSION);
