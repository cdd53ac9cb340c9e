import {
  LANGUAGES,
  REALM_GROUP_SETTING_DEFAULTS,
  badRequest,
  ZulipError,
  groupSettingChange,
  isAdmin,
  isOwner,
  mustBeAdmin,
  realmConfig,
  realmConfigEvents,
  requireUser,
  type ChannelCopy,
  type EventPublisher,
  type Handler,
  type PayloadOf,
  type RealmGroupSetting,
  mustBeOwner,
} from "@teamchat/shared";
import { checkRealmGroupSetting, OWNER_ONLY_GROUP_SETTINGS } from "../realms/group-setting-rules";
import {
  DIGEST_WEEKDAYS,
  GIPHY_RATING_OPTIONS,
  JITSI_SERVER_URL_MAX_LENGTH,
  AUTHENTICATION_METHODS,
  ORG_TYPE_IDS,
  OWNER_ONLY_PROFILE_SETTINGS,
  PROFILE_SETTING_DEFAULTS,
  VIDEO_CHAT_PROVIDERS,
  profileSettings,
  type ProfileSettingName,
} from "../realms/profile-settings";
import type { RealmRecordRepository } from "../realms/realm.repository";
import { realmSettings } from "../realms/settings";
import type { UserGroupCopy } from "../user-groups/user-group-copy";

type Params = Parameters<Handler<typeof realmConfig.updateRealm>>[0];
type Reply = Awaited<ReturnType<Handler<typeof realmConfig.updateRealm>>>;
type RealmEvent = PayloadOf<typeof realmConfigEvents.realmUpdated>["event"];

const TIME_LIMIT_SETTINGS = [
  "message_content_edit_limit_seconds",
  "message_content_delete_limit_seconds",
  "move_messages_within_stream_limit_seconds",
  "move_messages_between_streams_limit_seconds",
] as const;

/** Settings whose event is update_dict, for the history of their format (Zulip's do_set_realm_property). */
const UPDATE_DICT_SETTINGS = new Set(["allow_message_editing", "message_content_edit_limit_seconds"]);

const badValue = (name: string, value: number | string) =>
  new ZulipError("REQUEST_VARIABLE_INVALID", `Bad value for '${name}': ${value}`, 400, {
    var_name: name,
    bad_value: value,
  });

/** Zulip's parse_message_time_limit_setting: positive seconds, or "unlimited" (null). */
function timeLimit(name: string, value: number | string): number | null {
  if (value === "unlimited") return null;
  if (typeof value === "string" || value <= 0) throw badValue(name, value);
  return value;
}

/** Zulip's parse_message_retention_days: positive days, or "unlimited" (-1). */
function retentionDays(value: number | string): number {
  if (value === "unlimited") return -1;
  if (typeof value === "string" || value <= 0) throw badValue("message_retention_days", value);
  return value;
}

/** Zulip's event for one changed setting, in the form the newest Zulip sends it. */
function settingEvent(name: string, value: unknown): RealmEvent {
  if (name === "topics_policy") {
    const data = { topics_policy: value, mandatory_topics: value === "disable_empty_topic" };
    return { type: "realm", op: "update_dict", property: "default", data };
  }
  if (UPDATE_DICT_SETTINGS.has(name) || name in REALM_GROUP_SETTING_DEFAULTS) {
    return { type: "realm", op: "update_dict", property: "default", data: { [name]: value } };
  }
  return { type: "realm", op: "update", property: name, value: value as string | boolean | number | null };
}

/** Settings Zulip stores as text: its update_realm replies "updated" for them rather than the value. */
const TEXT_SETTINGS = new Set<string>([
  "default_language",
  "default_code_block_language",
  "jitsi_server_url",
  "welcome_message_custom_text",
]);

/** The organization's channel settings (Zulip's do_set_realm_stream): a channel id, -1 for none. */
const CHANNEL_SETTINGS = [
  "new_stream_announcements_stream_id",
  "signup_announcements_stream_id",
  "zulip_update_announcements_stream_id",
  "moderation_request_channel_id",
] as const;

/** Zulip's check_jitsi_url: "default" (the server's, null), or a URL of at most 200 characters. */
function jitsiServerUrl(value: string): string | null {
  if (value === "default") return null;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !["http:", "https:"].includes(url.protocol) || value.length > JITSI_SERVER_URL_MAX_LENGTH) {
    throw badRequest("jitsi_server_url is not an allowed_type");
  }
  return value;
}

/**
 * Zulip's validate_authentication_methods_dict_from_api and its "at least one"
 * rule. This server has one method, email and password, always on: a valid
 * request can only confirm it, so nothing is stored.
 */
function checkAuthenticationMethods(methods: Record<string, boolean>): void {
  const known = Object.keys(AUTHENTICATION_METHODS);
  for (const name of Object.keys(methods)) {
    if (!known.includes(name)) {
      throw badRequest(`Invalid authentication method: ${name}. Valid methods are: ['${known.sort().join("', '")}']`);
    }
  }
  if (!Object.values(methods).includes(true)) throw badRequest("At least one authentication method must be enabled.");
}

/**
 * The profile settings a request sends, checked as Zulip's update_realm does
 * (its messages); channel settings are checked apart.
 */
function requestedProfileSettings(p: Params): Partial<Record<ProfileSettingName, unknown>> {
  if (p.default_language !== undefined && !LANGUAGES.includes(p.default_language)) {
    throw badRequest(`Invalid language '${p.default_language}'`);
  }
  const providers = Object.values(VIDEO_CHAT_PROVIDERS).map((v) => v.id);
  if (p.video_chat_provider !== undefined && !providers.includes(p.video_chat_provider)) {
    throw badRequest(`Invalid video_chat_provider ${p.video_chat_provider}`);
  }
  const ratings = Object.values(GIPHY_RATING_OPTIONS).map((r) => r.id);
  if (p.giphy_rating !== undefined && !ratings.includes(p.giphy_rating)) {
    throw badRequest(`Invalid giphy_rating ${p.giphy_rating}`);
  }
  if (p.digest_weekday !== undefined && !DIGEST_WEEKDAYS.includes(p.digest_weekday))
    throw badRequest("Invalid digest_weekday");
  if (p.org_type !== undefined && !ORG_TYPE_IDS.includes(p.org_type)) throw badRequest("Invalid org_type");
  if (p.waiting_period_threshold !== undefined && p.waiting_period_threshold < 0) {
    throw badRequest("waiting_period_threshold is too small");
  }
  const plain = (Object.keys(PROFILE_SETTING_DEFAULTS) as ProfileSettingName[]).filter(
    (k) => k !== "jitsi_server_url" && !(CHANNEL_SETTINGS as readonly string[]).includes(k),
  );
  return {
    ...Object.fromEntries(plain.filter((k) => p[k] !== undefined).map((k) => [k, p[k]])),
    ...(p.jitsi_server_url === undefined ? {} : { jitsi_server_url: jitsiServerUrl(p.jitsi_server_url) }),
  };
}

/**
 * Zulip's access_stream_by_id(allow_realm_admin=True) for a channel setting:
 * an administrator may name any channel of the organization that is not
 * archived, else "Invalid channel ID". The moderation request channel must be
 * private (Zulip's do_set_realm_moderation_request_channel). Channels are
 * messaging's: realm-config reads its own copy of them (ChannelCopy).
 */
async function checkChannel(
  channels: ChannelCopy,
  realmId: number,
  setting: (typeof CHANNEL_SETTINGS)[number],
  streamId: number,
): Promise<void> {
  const channel = await channels.byId(realmId, streamId);
  if (!channel || channel.isArchived) throw badRequest("Invalid channel ID");
  if (setting === "moderation_request_channel_id" && !channel.inviteOnly) {
    throw badRequest("Moderation request channel must be private.");
  }
}

/**
 * PATCH /realm (Zulip's update_realm): administrators change the organization's
 * settings, owners alone those Zulip keeps for owners. Everything is checked
 * before anything is written, so a refused request changes nothing; settings
 * sent with their current value are skipped. One realm event per changed
 * setting, to everyone, published before the reply: every instance of every
 * service drops its copy of the settings on it.
 */
export const updateRealmHandler =
  ({
    realms,
    events,
    channels,
    userGroups,
  }: {
    realms: RealmRecordRepository;
    events: EventPublisher<"realm-config">;
    channels: ChannelCopy;
    userGroups: UserGroupCopy;
  }): Handler<typeof realmConfig.updateRealm> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const groupNames = (Object.keys(REALM_GROUP_SETTING_DEFAULTS) as RealmGroupSetting[]).filter(
      (name) => p[name] !== undefined,
    );
    const ownerOnly =
      p.message_retention_days !== undefined ||
      p.authentication_methods !== undefined ||
      groupNames.some((n) => OWNER_ONLY_GROUP_SETTINGS.includes(n)) ||
      OWNER_ONLY_PROFILE_SETTINGS.some((n) => p[n] !== undefined);
    if (ownerOnly && !isOwner(actor)) throw mustBeOwner();

    if (p.authentication_methods !== undefined) checkAuthenticationMethods(p.authentication_methods);
    const record = (await realms.byId(realm.id))!;
    const current = { ...realmSettings(record), ...profileSettings(record) };
    const reply: Record<string, unknown> = {};
    const settings: Record<string, unknown> = {};
    const change = (name: keyof Params, stored: unknown, replied = stored) => {
      settings[name] = stored;
      reply[name] = replied;
    };

    const requested: Partial<Record<keyof Params, unknown>> = {
      allow_message_editing: p.allow_message_editing,
      ...Object.fromEntries(TIME_LIMIT_SETTINGS.filter((n) => p[n] !== undefined).map((n) => [n, timeLimit(n, p[n]!)])),
      // the deprecated allow_edit_history: all history, or none
      message_edit_history_visibility_policy:
        p.message_edit_history_visibility_policy ??
        (p.allow_edit_history === undefined ? undefined : p.allow_edit_history ? "all" : "none"),
      enable_read_receipts: p.enable_read_receipts,
      enable_spectator_access: p.enable_spectator_access,
      // the deprecated mandatory_topics names one of the two policies it stood for
      topics_policy:
        p.topics_policy ??
        (p.mandatory_topics === undefined
          ? undefined
          : p.mandatory_topics
            ? "disable_empty_topic"
            : "allow_empty_topic"),
      message_retention_days:
        p.message_retention_days === undefined ? undefined : retentionDays(p.message_retention_days),
      ...requestedProfileSettings(p),
    };
    for (const [name, value] of Object.entries(requested) as Array<[keyof typeof current, unknown]>) {
      if (value !== undefined && current[name] !== value)
        change(name as keyof Params, value, TEXT_SETTINGS.has(name) && value !== null ? "updated" : value);
    }
    const groups = groupNames.length ? await userGroups.get(ctx) : null;
    for (const name of groupNames) {
      const next = groupSettingChange(current[name], p[name]!);
      if (next === null) continue;
      checkRealmGroupSetting(name, next, groups!);
      change(name, next);
    }
    for (const setting of CHANNEL_SETTINGS) {
      const channelId = p[setting];
      if (channelId === undefined || channelId === (current[setting] ?? -1)) continue;
      if (channelId >= 0) await checkChannel(channels, realm.id, setting, channelId);
      change(setting, channelId >= 0 ? channelId : null, channelId);
    }
    const name = p.name !== undefined && p.name !== record.name ? p.name : undefined;
    if (name !== undefined) reply.name = "updated";
    const description = p.description !== undefined && p.description !== record.description ? p.description : undefined;
    if (description !== undefined) reply.description = "updated";

    if (name === undefined && description === undefined && !Object.keys(settings).length) return {};
    await realms.change(realm.id, { name, description, settings });
    // events carry the value itself; the channel settings -1 for none
    const eventValue = (k: string) => (reply[k] === "updated" ? settings[k] : reply[k]);
    const changed: Array<[string, unknown]> = [
      ...(name === undefined ? [] : [["name", name] as [string, unknown]]),
      ...(description === undefined ? [] : [["description", description] as [string, unknown]]),
      ...Object.keys(settings).map((k): [string, unknown] => [k, eventValue(k)]),
    ];
    for (const [setting, value] of changed) {
      events.publish(
        realmConfigEvents.realmUpdated,
        { realmId: realm.id, userIds: "all", event: settingEvent(setting, value) },
        ctx.requestId,
      );
    }
    ctx.log.info({ realmId: realm.id, settings: changed.map(([k]) => k) }, "organization settings changed");
    return reply as Reply;
  };
