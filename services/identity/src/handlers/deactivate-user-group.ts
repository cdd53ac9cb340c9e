import {
  CHANNEL_GROUP_SETTINGS,
  REALM_GROUP_SETTING_DEFAULTS,
  USER_GROUP_SETTINGS,
  ZulipError,
  groupSettingUses,
  realmConfig,
  requireUser,
  type BusClient,
  type ChannelCopy,
  type EventPublisher,
  type Handler,
  type identity,
} from "@teamchat/shared";
import { accessGroupForUpdate, loadRealmGroups } from "../user-groups/access";
import { publishUserGroupEvent } from "../user-groups/events";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import type { UserDirectory } from "../users/user-directory";

type Objection =
  | { type: "subgroup"; supergroup_ids: number[] }
  | { type: "user_group"; group_id: number; settings: string[] }
  | { type: "realm"; settings: string[] }
  | { type: "channel"; channel_id: number; settings: string[] };

/**
 * POST /user_groups/{id}/deactivate (Zulip's deactivate_user_group and
 * access_user_group_for_deactivation): refused with
 * CANNOT_DEACTIVATE_GROUP_IN_USE while an active group has it as a subgroup or
 * a group's, the organization's or a channel's setting uses it. Channels are
 * messaging's, which sits above identity: their settings come from identity's
 * copy of them (ChannelCopy).
 */
export const deactivateUserGroupHandler =
  (deps: {
    groups: UserGroupRepository;
    users: UserDirectory;
    events: EventPublisher<"identity">;
    bus: BusClient;
    channels: ChannelCopy;
  }): Handler<typeof identity.deactivateUserGroup> =>
  async (p, ctx) => {
    const { realm } = requireUser(ctx);
    const realmGroups = await loadRealmGroups(deps, realm.id);
    const { id } = await accessGroupForUpdate(deps, realmGroups, p.user_group_id, "can_manage_group", ctx);

    const active = realmGroups.userCreated().filter((g) => !g.deactivated);
    const objections: Objection[] = [];
    const supergroupIds = active.filter((g) => g.subgroups.includes(id)).map((g) => g.groupId);
    if (supergroupIds.length > 0) objections.push({ type: "subgroup", supergroup_ids: supergroupIds });
    for (const group of active) {
      const settings = USER_GROUP_SETTINGS.filter((s) => groupSettingUses(group.settings[s], id));
      if (settings.length > 0) objections.push({ type: "user_group", group_id: group.groupId, settings });
    }
    const realmSettings = await deps.bus.request(realmConfig.getRealmSettings, {}, ctx);
    const usedByRealm = (
      Object.keys(REALM_GROUP_SETTING_DEFAULTS) as Array<keyof typeof REALM_GROUP_SETTING_DEFAULTS>
    ).filter((s) => groupSettingUses(realmSettings[s], id));
    if (usedByRealm.length > 0) objections.push({ type: "realm", settings: usedByRealm });
    for (const channel of await deps.channels.all(realm.id)) {
      const settings = CHANNEL_GROUP_SETTINGS.filter((s) => groupSettingUses(channel.groups[s], id));
      if (settings.length > 0) objections.push({ type: "channel", channel_id: channel.streamId, settings });
    }
    if (objections.length > 0) {
      throw new ZulipError("CANNOT_DEACTIVATE_GROUP_IN_USE", "Cannot deactivate user group in use.", 400, {
        objections,
      });
    }

    await deps.groups.change(realm.id, id, { deactivated: true });
    publishUserGroupEvent(
      deps.events,
      realm.id,
      { type: "user_group", op: "update", group_id: id, data: { deactivated: true } },
      ctx,
    );
    publishUserGroupEvent(deps.events, realm.id, { type: "user_group", op: "remove", group_id: id }, ctx);
    return {};
  };
