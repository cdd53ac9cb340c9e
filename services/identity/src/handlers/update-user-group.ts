import {
  USER_GROUP_SETTINGS,
  ZulipError,
  badRequest,
  isDuplicateKey,
  parseGroupSettingValue,
  requireUser,
  sameGroupSettingValue,
  type GroupSettingValue,
  type Handler,
  type UserGroupSetting,
  type identity,
  type EventPublisher,
  type BusClient,
} from "@teamchat/shared";
import { accessGroupForUpdate, checkGroupSettingValue, loadRealmGroups } from "../user-groups/access";
import { publishUserGroupEvent } from "../user-groups/events";
import type { UserGroupChanges, UserGroupRepository } from "../user-groups/user-group.repository";
import { checkUserGroupName, groupNameTaken } from "./create-user-group";
import { requireMemberOrAdmin } from "../users/access";
import type { UserDirectory } from "../users/user-directory";

/** Zulip's PreviousSettingValueMismatchedError: the client showed another value than the current one. */
const oldValueMismatch = () =>
  new ZulipError("EXPECTATION_MISMATCH", "'old' value does not match the expected value.", 400);

/**
 * PATCH /user_groups/{id} (Zulip's edit_user_group): the group's
 * can_manage_group (or the organization's can_manage_all_groups) may rename
 * it, describe it, reactivate it and change its permissions; deactivated
 * groups too. Everything is checked before anything is written.
 */
export const updateUserGroupHandler =
  (deps: {
    groups: UserGroupRepository;
    users: UserDirectory;
    events: EventPublisher<"identity">;
    bus: BusClient;
  }): Handler<typeof identity.updateUserGroup> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireMemberOrAdmin(actor);
    const settingsGiven = USER_GROUP_SETTINGS.filter((s) => p[s] !== undefined);
    if (
      p.name === undefined &&
      p.description === undefined &&
      p.deactivated === undefined &&
      settingsGiven.length === 0
    ) {
      throw badRequest("No new data supplied");
    }
    const realmGroups = await loadRealmGroups(deps, realm.id);
    const { id, doc } = await accessGroupForUpdate(deps, realmGroups, p.user_group_id, "can_manage_group", ctx, {
      allowDeactivated: true,
    });

    const changes: UserGroupChanges = {};
    if (p.name !== undefined && p.name !== doc.name) changes.name = checkUserGroupName(p.name);
    if (p.description !== undefined && p.description !== doc.description) changes.description = p.description;
    const reactivate = p.deactivated === false && doc.deactivated;
    if (reactivate) changes.deactivated = false;
    const settings: Partial<Record<UserGroupSetting, GroupSettingValue>> = {};
    for (const setting of settingsGiven) {
      const { new: given, old } = p[setting]!;
      const current = realmGroups.settingForApi(doc.settings[setting]);
      if (old !== undefined && !sameGroupSettingValue(parseGroupSettingValue(old), current)) throw oldValueMismatch();
      if (sameGroupSettingValue(parseGroupSettingValue(given), current)) continue;
      settings[setting] = checkGroupSettingValue(realmGroups, setting, given);
    }
    if (Object.keys(settings).length > 0) changes.settings = settings;
    if (Object.keys(changes).length === 0) return {};

    await deps.groups.change(realm.id, id, changes).catch((err: unknown) => {
      throw isDuplicateKey(err) ? groupNameTaken(changes.name!) : err;
    });

    const update = (data: Record<string, string | boolean | GroupSettingValue>, deactivated?: boolean) =>
      publishUserGroupEvent(
        deps.events,
        realm.id,
        { type: "user_group", op: "update", group_id: id, data, ...(deactivated === undefined ? {} : { deactivated }) },
        ctx,
      );
    // a name update says whether the group is deactivated, for clients that do not show those
    if (changes.name !== undefined) update({ name: changes.name }, doc.deactivated);
    if (changes.description !== undefined) update({ description: changes.description });
    if (reactivate) {
      update({ deactivated: false });
      const reactivated = { ...doc, ...changes, settings: { ...doc.settings, ...settings } };
      publishUserGroupEvent(
        deps.events,
        realm.id,
        { type: "user_group", op: "add", group: realmGroups.view({ id, doc: reactivated }), for_reactivation: true },
        ctx,
      );
    }
    for (const [setting, value] of Object.entries(settings)) update({ [setting]: realmGroups.settingForApi(value) });
    return {};
  };
