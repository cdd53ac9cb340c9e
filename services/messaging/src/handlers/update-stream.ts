import {
  CHANNEL_GROUP_SETTINGS,
  checkGroupsExist,
  ZulipError,
  groupSettingChange,
  badRequest,
  isAdmin,
  isDuplicateKey,
  isOwner,
  messaging,
  messagingEvents,
  requireUser,
  type Actor,
  type ChannelGroupSetting,
  type GroupMembership,
  type GroupSettingValue,
  type Handler,
  type HandlerContext,
  type ParamsOf,
  type realmConfig,
  mustBeOwner,
  type EventPublisher,
  type UserGroupMemberships,
  renderMarkdown,
} from "@teamchat/shared";
import { accessChannelForUpdate, canReadContent } from "../channels/channel-access";
import {
  publishChannelHidden,
  publishChannelRevealed,
  publishDefaultStreams,
  publishStreamUpdate,
} from "../channels/channel-events";
import type { ChannelChanges } from "../channels/channel.repository";
import type { ChannelDoc } from "../channels/channel.schema";
import { channelView, groupSetting } from "../channels/channel-view";
import { checkChannelName, isTopicsPolicy, retentionDays } from "../channels/create-channels";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { UserDirectory } from "../users/user-directory";
import { metadataAudience } from "../subscriptions/subscribe-users";

type Params = ParamsOf<typeof messaging.updateStream>;

/** Zulip's Stream.stream_permission_group_settings_requiring_content_access. */
const SETTINGS_REQUIRING_CONTENT_ACCESS: readonly ChannelGroupSetting[] = [
  "can_add_subscribers_group",
  "can_subscribe_group",
];

export const channelExists = (name: string): ZulipError =>
  new ZulipError("CHANNEL_ALREADY_EXISTS", `Channel '${name}' already exists`, 400, { channel_name: name });

export const cannotManageDefaultChannels = (): ZulipError =>
  badRequest("You do not have permission to change default channels.");

/**
 * Zulip's checks of update_stream_backend, all made before anything is
 * written (Zulip writes as it goes; here a refused request changes nothing):
 * the proposed privacy must be coherent, privacy needs content access and
 * the organization's permission to create such channels, default channels
 * need an administrator, retention an owner, topics_policy
 * can_set_topics_policy_group.
 */
async function changesOf(
  deps: { channels: ChannelDirectory; subscriptions: SubscriptionDirectory; settings: RealmSettingsSource },
  ctx: HandlerContext,
  actor: Actor,
  channel: ChannelDoc,
  subscribed: boolean,
  groups: GroupMembership,
  p: Params,
): Promise<ChannelChanges> {
  const settings = await deps.settings.get(ctx);
  const changes: ChannelChanges = {};
  const isPrivate = p.is_private ?? channel.inviteOnly;
  const isWebPublic = p.is_web_public ?? channel.isWebPublic;
  const isDefault = p.is_default_stream ?? channel.isDefault;
  // By default, private channels protect their history and public ones share it.
  const historyPublic =
    p.history_public_to_subscribers ??
    (p.is_private !== undefined ? !p.is_private : channel.historyPublicToSubscribers);
  if ((isWebPublic && (!historyPublic || isPrivate)) || (!isPrivate && !historyPublic)) {
    throw badRequest("Invalid parameters");
  }
  if (isPrivate && isDefault) throw badRequest("A default channel cannot be private.");
  if (p.is_private !== undefined) {
    if (!canReadContent(actor, channel, subscribed, groups)) throw badRequest("Channel content access is required.");
    const permission = p.is_private
      ? settings.can_create_private_channel_group
      : settings.can_create_public_channel_group;
    if (!groups.includes(permission, actor)) throw badRequest("Insufficient permission");
  }
  if (p.is_web_public) {
    if (!(settings.web_public_streams_enabled && settings.enable_spectator_access)) {
      throw badRequest("Web-public channels are not enabled.");
    }
    if (!groups.includes(settings.can_create_web_public_channel_group, actor))
      throw badRequest("Insufficient permission");
  }
  if (p.is_private !== undefined || p.is_web_public !== undefined || p.history_public_to_subscribers !== undefined) {
    Object.assign(changes, { inviteOnly: isPrivate, isWebPublic, historyPublicToSubscribers: historyPublic });
  }
  if (p.is_default_stream !== undefined) {
    if (!isAdmin(actor)) throw cannotManageDefaultChannels();
    changes.isDefault = p.is_default_stream;
  }
  if (p.message_retention_days !== undefined) {
    if (!isOwner(actor)) throw mustBeOwner();
    changes.messageRetentionDays = retentionDays(p.message_retention_days);
  }
  if (p.is_archived === false) {
    // Zulip's do_unarchive_stream
    if (!channel.isArchived) throw badRequest("Channel is not currently deactivated");
    if (channel.inviteOnly && !(await deps.subscriptions.subscriberIds(channel.realmId, channel.streamId)).length) {
      throw badRequest("Channel is private and have no subscribers");
    }
    changes.isArchived = false;
  }
  if (p.topics_policy !== undefined) {
    if (!isTopicsPolicy(p.topics_policy)) throw badRequest("Invalid topics_policy");
    if (!groups.includes(settings.can_set_topics_policy_group, actor)) throw badRequest("Insufficient permission");
    changes.topicsPolicy = p.topics_policy;
  }
  if (p.description !== undefined) {
    // Zulip allows no newlines in channel descriptions.
    const description = p.description.replace(/\n/g, " ");
    if (description.length > settings.max_stream_description_length) {
      throw badRequest(`description is too long (limit: ${settings.max_stream_description_length} characters)`);
    }
    Object.assign(changes, { description, renderedDescription: renderMarkdown(description) });
  }
  if (p.new_name !== undefined) changes.name = await newName(deps, channel, p.new_name, settings);
  if (p.folder_id !== undefined) {
    if (p.folder_id !== null && !(await deps.settings.folderExists(ctx, p.folder_id))) {
      throw badRequest("Invalid channel folder ID");
    }
    changes.folderId = p.folder_id;
  }
  const groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingValue>> = {};
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const update = p[name];
    if (update === undefined) continue;
    const next = groupSettingChange(groupSetting(channel, name), update);
    if (next === null) continue;
    if (SETTINGS_REQUIRING_CONTENT_ACCESS.includes(name) && !canReadContent(actor, channel, subscribed, groups)) {
      throw badRequest("Channel content access is required.");
    }
    checkGroupsExist(groups, next);
    groupSettings[name] = next;
  }
  if (Object.keys(groupSettings).length) changes.groupSettings = groupSettings;
  return changes;
}

/** Zulip's rename checks: a real change, a valid name, free unless only its case changes. */
async function newName(
  deps: { channels: ChannelDirectory },
  channel: ChannelDoc,
  requested: string,
  settings: realmConfig.RealmSettings,
): Promise<string> {
  const name = requested.trim();
  if (name === channel.name) throw badRequest("Channel already has that name.");
  checkChannelName(name, settings);
  if (name.toLowerCase() !== channel.nameKey && (await deps.channels.byName(channel.realmId, name))) {
    throw channelExists(name);
  }
  return name;
}

/**
 * PATCH /streams/{stream_id} (Zulip's update_stream_backend): channel
 * administrators (organization administrators and can_administer_channel_group)
 * change its properties; those who see the channel hear one stream update
 * event per property, in Zulip's order, with the channel's state after the
 * change deciding who they are.
 */
export const updateStreamHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
    settings: RealmSettingsSource;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.updateStream> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const realmId = realm.id;
    const {
      channel: before,
      subscribed,
      groups,
    } = await accessChannelForUpdate(deps, realmId, actor, p.stream_id, ctx);
    const changes = await changesOf(deps, ctx, actor, before, subscribed, groups, p);
    if (!Object.keys(changes).length) return {};
    try {
      await deps.channels.update(realmId, p.stream_id, changes);
    } catch (err) {
      if (isDuplicateKey(err) && changes.name !== undefined) throw channelExists(changes.name);
      throw err;
    }
    const after = (await deps.channels.byId(realmId, p.stream_id))!;
    const subscribers = await deps.subscriptions.subscriberIds(realmId, p.stream_id);
    const [seeBefore, seeAfter] = await Promise.all([
      metadataAudience(deps, ctx, realmId, before, subscribers),
      metadataAudience(deps, ctx, realmId, after, subscribers),
    ]);
    // Who now sees a channel they did not (made public or web-public, put in a group granting metadata access)
    // gets it whole, in its new state, instead of the updates (Zulip's do_change_stream_permission and
    // do_change_stream_group_based_setting); who no longer sees it gets a delete (Zulip does so for group
    // settings; here also for privacy, so that their state matches what register would now give them).
    const revealedTo = seeAfter.filter((id) => !seeBefore.includes(id));
    const hiddenFrom = seeBefore.filter((id) => !seeAfter.includes(id));
    if (revealedTo.length) publishChannelRevealed(deps, ctx, realmId, revealedTo, after, subscribers);
    const told = seeAfter.filter((id) => !revealedTo.includes(id));
    const tell = (update: Parameters<typeof publishStreamUpdate>[4]) =>
      publishStreamUpdate(deps, ctx, realmId, told, update);
    const id = p.stream_id;
    // Events carry the old name until the rename is told, as Zulip's (which renames after the other properties).
    const { name } = before;

    if (changes.inviteOnly !== undefined) {
      tell({
        stream_id: id,
        name,
        property: "invite_only",
        value: after.inviteOnly,
        history_public_to_subscribers: after.historyPublicToSubscribers,
        is_web_public: after.isWebPublic,
      });
    }
    if (changes.isDefault !== undefined && changes.isDefault !== before.isDefault) {
      await publishDefaultStreams(deps, ctx, realmId);
    }
    if (changes.messageRetentionDays !== undefined) {
      tell({ stream_id: id, name, property: "message_retention_days", value: after.messageRetentionDays });
    }
    if (changes.isArchived === false) {
      tell({ stream_id: id, name, property: "is_archived", value: false });
      deps.events.publish(
        messagingEvents.streamCreated,
        {
          realmId,
          userIds: told,
          event: { type: "stream", op: "create", streams: [channelView(after)], for_unarchiving: true },
        },
        ctx.requestId,
      );
    }
    if (changes.topicsPolicy !== undefined && changes.topicsPolicy !== before.topicsPolicy) {
      tell({ stream_id: id, name, property: "topics_policy", value: after.topicsPolicy });
    }
    if (changes.description !== undefined) {
      tell({
        stream_id: id,
        name,
        property: "description",
        value: after.description,
        rendered_description: after.renderedDescription,
      });
    }
    if (changes.name !== undefined) tell({ stream_id: id, name, property: "name", value: after.name });
    if (changes.folderId !== undefined) {
      tell({ stream_id: id, name: after.name, property: "folder_id", value: after.folderId });
    }
    for (const setting of CHANNEL_GROUP_SETTINGS) {
      const value = changes.groupSettings?.[setting];
      if (value !== undefined) tell({ stream_id: id, name: after.name, property: setting, value });
    }
    if (hiddenFrom.length) publishChannelHidden(deps, ctx, realmId, hiddenFrom, id);
    return {};
  };
