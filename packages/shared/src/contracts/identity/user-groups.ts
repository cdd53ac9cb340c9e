import { z } from "zod";
import { defineContract } from "../../contract";
import { groupSettingValueSchema, int, intList } from "../common";

/** Zulip's UserGroup object (GET /user_groups, register's realm_user_groups, user_group add events). */
export const userGroupSchema = z.strictObject({
  name: z.string(),
  date_created: int.nullable(),
  creator_id: int.nullable(),
  description: z.string(),
  /** direct members (active users only) */
  members: intList,
  direct_subgroup_ids: intList,
  id: int,
  is_system_group: z.boolean(),
  can_add_members_group: groupSettingValueSchema,
  can_join_group: groupSettingValueSchema,
  can_leave_group: groupSettingValueSchema,
  can_manage_group: groupSettingValueSchema,
  can_mention_group: groupSettingValueSchema,
  can_remove_members_group: groupSettingValueSchema,
  deactivated: z.boolean(),
});

export type UserGroup = z.infer<typeof userGroupSchema>;

/** A group permission of POST /user_groups/create: the value to set. */
const settingParam = groupSettingValueSchema.optional();

/** POST /user_groups/create: the new group's id (FL 317). */
export const createUserGroup = defineContract({
  subject: "identity.user_groups.create",
  http: { method: "POST", path: "/user_groups/create", auth: "user" },
  params: z.object({
    name: z.string(),
    description: z.string(),
    members: intList,
    subgroups: intList.optional(),
    can_add_members_group: settingParam,
    can_join_group: settingParam,
    can_leave_group: settingParam,
    can_manage_group: settingParam,
    can_mention_group: settingParam,
    can_remove_members_group: settingParam,
  }),
  reply: z.strictObject({ group_id: int }),
});

/** GET /user_groups: every group of the organization, system groups included, by id. */
export const getUserGroups = defineContract({
  subject: "identity.user_groups.list",
  http: { method: "GET", path: "/user_groups", auth: "user" },
  params: z.object({ include_deactivated_groups: z.boolean().default(false) }),
  reply: z.strictObject({ user_groups: z.array(userGroupSchema) }),
});

/** A group permission of PATCH /user_groups/{id}: Zulip's GroupSettingValueUpdate (`old`, when given, must be the current value). */
const settingChange = z.object({ new: groupSettingValueSchema, old: groupSettingValueSchema.optional() }).optional();

/** PATCH /user_groups/{user_group_id}: name, description, reactivation (`deactivated: false`) and the group's permissions. */
export const updateUserGroup = defineContract({
  subject: "identity.user_groups.update",
  http: { method: "PATCH", path: "/user_groups/{user_group_id}", auth: "user" },
  params: z.object({
    user_group_id: int,
    name: z.string().optional(),
    description: z.string().optional(),
    deactivated: z.boolean().optional(),
    can_add_members_group: settingChange,
    can_join_group: settingChange,
    can_leave_group: settingChange,
    can_manage_group: settingChange,
    can_mention_group: settingChange,
    can_remove_members_group: settingChange,
  }),
  reply: z.strictObject({}),
});

/** POST /user_groups/{user_group_id}/deactivate (FL 290). */
export const deactivateUserGroup = defineContract({
  subject: "identity.user_groups.deactivate",
  http: { method: "POST", path: "/user_groups/{user_group_id}/deactivate", auth: "user" },
  params: z.object({ user_group_id: int }),
  reply: z.strictObject({}),
});

/** POST /user_groups/{user_group_id}/members (Zulip's update_user_group_backend): users and, since FL 311, subgroups. */
export const updateUserGroupMembers = defineContract({
  subject: "identity.user_groups.update_members",
  http: { method: "POST", path: "/user_groups/{user_group_id}/members", auth: "user" },
  params: z.object({
    user_group_id: int,
    add: intList.optional(),
    delete: intList.optional(),
    add_subgroups: intList.optional(),
    delete_subgroups: intList.optional(),
  }),
  reply: z.strictObject({}),
});

/** POST /user_groups/{user_group_id}/subgroups. */
export const updateUserGroupSubgroups = defineContract({
  subject: "identity.user_groups.update_subgroups",
  http: { method: "POST", path: "/user_groups/{user_group_id}/subgroups", auth: "user" },
  params: z.object({ user_group_id: int, add: intList.optional(), delete: intList.optional() }),
  reply: z.strictObject({}),
});

/** GET /user_groups/{user_group_id}/members: active members, recursively unless direct_member_only. */
export const getUserGroupMembers = defineContract({
  subject: "identity.user_groups.members",
  http: { method: "GET", path: "/user_groups/{user_group_id}/members", auth: "user" },
  params: z.object({ user_group_id: int, direct_member_only: z.boolean().default(false) }),
  reply: z.strictObject({ members: intList }),
});

/** GET /user_groups/{user_group_id}/members/{user_id}. */
export const getIsUserGroupMember = defineContract({
  subject: "identity.user_groups.is_member",
  http: { method: "GET", path: "/user_groups/{user_group_id}/members/{user_id}", auth: "user" },
  params: z.object({ user_group_id: int, user_id: int, direct_member_only: z.boolean().default(false) }),
  reply: z.strictObject({ is_user_group_member: z.boolean() }),
});

/** GET /user_groups/{user_group_id}/subgroups: nested groups, recursively unless direct_subgroup_only. */
export const getUserGroupSubgroups = defineContract({
  subject: "identity.user_groups.subgroups",
  http: { method: "GET", path: "/user_groups/{user_group_id}/subgroups", auth: "user" },
  params: z.object({ user_group_id: int, direct_subgroup_only: z.boolean().default(false) }),
  reply: z.strictObject({ subgroups: intList }),
});

/**
 * Internal: the organization's user-created groups (deactivated ones too)
 * with their direct members and subgroups, for the services that evaluate
 * group-setting values (UserGroupMemberships), and their names and who may
 * mention them, for the `@*group*` mentions messages render.
 */
export const getUserGroupMemberships = defineContract({
  subject: "identity.user_groups.memberships",
  params: z.object({}),
  reply: z.object({
    groups: z.array(
      z.object({
        id: int,
        name: z.string(),
        deactivated: z.boolean(),
        members: intList,
        direct_subgroup_ids: intList,
        can_mention_group: groupSettingValueSchema,
      }),
    ),
  }),
});
