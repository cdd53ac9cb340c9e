import {
  identity,
  isAdmin,
  mustBeAdmin,
  requireUser,
  SYSTEM_BOTS,
  type ExportRow,
  type Handler,
  type RealmRef,
} from "@teamchat/shared";
import { settingsOf } from "../users/settings";
import type { UserDoc } from "../users/user.schema";
import type { UserDirectory } from "../users/user-directory";
import { apiEmail } from "../users/user-view";
import type { UserGroupRepository } from "../user-groups/user-group.repository";

/** GET /export/realm/consents (Zulip's get_users_export_consents): active humans, administrators only. */
export const getExportConsentsHandler =
  (deps: { users: UserDirectory }): Handler<typeof identity.getExportConsents> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const users = (await deps.users.all(realm.id)).filter((u) => u.isActive && !u.isBot);
    return {
      export_consents: users.map((u) => ({ user_id: u.userId, consented: settingsOf(u).allow_private_data_export })),
    };
  };

/** Zulip's avatar_source for users without an uploaded avatar (Gravatar). */
const AVATAR_FROM_GRAVATAR = "G";

/** A user as Zulip's zerver_userprofile row: the account, then every personal setting by Zulip's name. */
const userProfileRow = (realm: RealmRef, u: UserDoc): ExportRow => ({
  ...settingsOf(u),
  id: u.userId,
  realm: realm.id,
  email: apiEmail(u, realm),
  delivery_email: u.deliveryEmail,
  full_name: u.fullName,
  role: u.role,
  is_active: u.isActive,
  is_bot: u.isBot,
  bot_type: u.botType,
  bot_owner: u.botOwnerId,
  is_mirror_dummy: false,
  date_joined: u.dateJoined.getTime() / 1000,
  timezone: u.timezone,
  avatar_source: AVATAR_FROM_GRAVATAR,
  avatar_version: u.avatarVersion,
  can_create_users: u.canCreateUsers,
  can_change_user_emails: u.canChangeUserEmails,
  // system bots are carried as bots; the importing server makes its own
  is_system_bot: u.isSystemBot ?? false,
});

/** Internal (realm export): a page of users in id order, with their custom profile field values (numbered by the caller). */
export const exportUsersHandler =
  (deps: { users: UserDirectory }): Handler<typeof identity.exportUsers> =>
  async ({ after_user_id, limit }, ctx) => {
    const realm = ctx.realm!;
    const page = (await deps.users.all(realm.id)).filter((u) => u.userId > after_user_id).slice(0, limit);
    const systemBots =
      after_user_id === 0 ? await Promise.all(SYSTEM_BOTS.map((bot) => deps.users.systemBot(realm.id, bot))) : [];
    return {
      zerver_userprofile_crossrealm: systemBots.map((b) => ({
        id: b.userId,
        email: b.deliveryEmail,
        email_domain: b.deliveryEmail.split("@")[1],
      })),
      zerver_userprofile: page.map((u) => userProfileRow(realm, u)),
      zerver_customprofilefieldvalue: page.flatMap((u) =>
        Object.entries(u.profileData).map(([field, v]) => ({
          user_profile: u.userId,
          field: Number(field),
          value: v.value,
          rendered_value: v.rendered_value ?? null,
        })),
      ),
    };
  };

/** Internal (realm export): user-created groups as Zulip's UserGroup/NamedUserGroup rows and their memberships. */
export const exportUserGroupsHandler =
  (deps: { groups: UserGroupRepository }): Handler<typeof identity.exportUserGroups> =>
  async (_p, ctx) => {
    const realmId = ctx.realm!.id;
    const groups = await deps.groups.all(realmId);
    let membershipId = 0;
    let subgroupId = 0;
    return {
      zerver_usergroup: groups.map((g) => ({ id: g.groupId, realm: realmId })),
      zerver_namedusergroup: groups.map((g) => ({
        ...g.settings,
        usergroup_ptr: g.groupId,
        realm_for_sharding: realmId,
        name: g.name,
        description: g.description,
        is_system_group: false,
        creator: g.creatorId,
        date_created: g.dateCreated.getTime() / 1000,
        deactivated: g.deactivated,
      })),
      zerver_usergroupmembership: groups.flatMap((g) =>
        g.members.map((userId) => ({ id: ++membershipId, user_group: g.groupId, user_profile: userId })),
      ),
      zerver_groupgroupmembership: groups.flatMap((g) =>
        g.subgroups.map((sub) => ({ id: ++subgroupId, supergroup: g.groupId, subgroup: sub })),
      ),
    };
  };
