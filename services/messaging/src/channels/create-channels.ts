import {
  Role,
  badRequest,
  isDuplicateKey,
  isGuest,
  realmConfig,
  CHANNEL_GROUP_SETTINGS,
  TOPICS_POLICIES,
  checkGroupsExist,
  type Actor,
  type HandlerContext,
  type ChannelGroupSetting,
  type GroupSettingValue,
  type GroupMembership,
  mustBeOwner,
  unprintablePosition,
  type UserGroupMemberships,
  renderMarkdown,
} from "@teamchat/shared";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { ChannelDirectory } from "./channel-directory";
import type { ChannelDoc } from "./channel.schema";

type GroupSettings = Partial<Record<ChannelGroupSetting, GroupSettingValue>>;

/** The channel properties both creation paths take (POST /channels/create, POST /users/me/subscriptions). */
export interface ChannelOptions extends GroupSettings {
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days: string | number;
  topics_policy?: string;
  folder_id?: number;
}

type TopicsPolicy = ChannelDoc["topicsPolicy"];
export const isTopicsPolicy = (value: string): value is TopicsPolicy =>
  (TOPICS_POLICIES as readonly string[]).includes(value);

/** Zulip's check_stream_name. */
export function checkChannelName(name: string, settings: realmConfig.RealmSettings): string {
  const trimmed = name.trim();
  if (trimmed === "") throw badRequest("Channel name can't be empty.");
  if (trimmed.length > settings.max_stream_name_length) {
    throw badRequest(`Channel name too long (limit: ${settings.max_stream_name_length} characters).`);
  }
  const position = unprintablePosition(trimmed);
  if (position !== null) throw badRequest(`Invalid character in channel name, at position ${position}.`);
  return trimmed;
}

/** Zulip's parse_message_retention_days: null = the organization's default, -1 = forever. */
export function retentionDays(value: string | number): number | null {
  if (value === "realm_default") return null;
  if (value === "unlimited" || value === "forever") return -1;
  if (typeof value === "number" && value > 0) return value;
  throw badRequest(`Bad value for 'message_retention_days': ${value}`);
}

/** Whether the server and the organization allow web-public channels (Zulip's Realm.web_public_streams_enabled). */
const webPublicChannelsEnabled = (settings: realmConfig.RealmSettings): boolean =>
  settings.web_public_streams_enabled && settings.enable_spectator_access;

const CREATION_SETTINGS = {
  public: "can_create_public_channel_group",
  private: "can_create_private_channel_group",
  web_public: "can_create_web_public_channel_group",
} as const;

/**
 * Zulip's can_create_{public,private,web_public}_streams: the organization's group
 * setting for that kind of channel, never guests; web-public ones only where enabled.
 */
export const canCreateChannels = (
  actor: Actor,
  kind: keyof typeof CREATION_SETTINGS,
  settings: realmConfig.RealmSettings,
  groups: GroupMembership,
): boolean =>
  !isGuest(actor) &&
  (kind !== "web_public" || webPublicChannelsEnabled(settings)) &&
  groups.includes(settings[CREATION_SETTINGS[kind]], actor);

/** Checks that apply once per request, whatever the number of channels. */
export async function checkChannelOptions(
  deps: { settings: RealmSettingsSource; userGroups: UserGroupMemberships },
  ctx: HandlerContext,
  actor: Actor,
  o: ChannelOptions,
): Promise<realmConfig.RealmSettings> {
  const [settings, groups] = await Promise.all([deps.settings.get(ctx), deps.userGroups.get(ctx)]);
  const kind = o.is_web_public ? "web_public" : o.invite_only ? "private" : "public";
  if (o.is_web_public && !webPublicChannelsEnabled(settings)) {
    throw badRequest("Web-public channels are not enabled.");
  }
  if (!canCreateChannels(actor, kind, settings, groups)) throw badRequest("Insufficient permission");
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const value = o[name];
    if (value !== undefined) checkGroupsExist(groups, value);
  }
  if (o.invite_only && o.is_web_public) throw badRequest("Invalid parameters");
  if (o.invite_only && o.is_default_stream) throw badRequest("A default channel cannot be private.");
  if (o.topics_policy !== undefined && !isTopicsPolicy(o.topics_policy)) {
    throw badRequest("Invalid topics_policy");
  }
  if (o.message_retention_days !== "realm_default") {
    retentionDays(o.message_retention_days);
    if (actor.role !== Role.OWNER) throw mustBeOwner();
  }
  if (o.folder_id !== undefined && !(await deps.settings.folderExists(ctx, o.folder_id))) {
    throw badRequest("Invalid channel folder ID");
  }
  return settings;
}

/** Inserts one channel; null when its name is taken (the caller decides whether that is an error). */
export async function insertChannel(
  deps: { channels: ChannelDirectory },
  realmId: number,
  actor: Actor,
  settings: realmConfig.RealmSettings,
  spec: { name: string; description?: string },
  o: ChannelOptions,
): Promise<ChannelDoc | null> {
  const description = (spec.description ?? "").replace(/\n/g, " ");
  if (description.length > settings.max_stream_description_length) {
    throw badRequest(`description is too long (limit: ${settings.max_stream_description_length} characters)`);
  }
  const groupSettings: GroupSettings = Object.fromEntries(
    CHANNEL_GROUP_SETTINGS.flatMap((name) => (o[name] !== undefined ? [[name, o[name]]] : [])),
  );
  try {
    return await deps.channels.insert(realmId, {
      name: spec.name,
      description,
      renderedDescription: renderMarkdown(description),
      inviteOnly: o.invite_only,
      isWebPublic: o.is_web_public,
      // Public channels always share history; private ones protect it unless told otherwise (Zulip's default).
      historyPublicToSubscribers: o.invite_only ? (o.history_public_to_subscribers ?? false) : true,
      messageRetentionDays: retentionDays(o.message_retention_days),
      topicsPolicy: o.topics_policy !== undefined && isTopicsPolicy(o.topics_policy) ? o.topics_policy : "inherit",
      folderId: o.folder_id ?? null,
      isDefault: o.is_default_stream,
      dateCreated: Math.floor(Date.now() / 1000),
      creatorId: actor.userId,
      groupSettings,
    });
  } catch (err) {
    if (isDuplicateKey(err)) return null;
    throw err;
  }
}
