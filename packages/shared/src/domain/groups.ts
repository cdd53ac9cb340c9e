/**
 * System user groups. Zulip creates them per organization with database ids; here
 * every organization has the same fixed ids, so group-setting values can be
 * computed without a lookup. User-created groups (identity) must be numbered above
 * LAST_SYSTEM_GROUP_ID. Clients never compare group ids across organizations.
 */
export const SYSTEM_GROUPS = {
  "role:owners": 1,
  "role:administrators": 2,
  "role:moderators": 3,
  "role:fullmembers": 4,
  "role:members": 5,
  "role:everyone": 6,
  "role:internet": 7,
  "role:nobody": 8,
} as const;

export type SystemGroupName = keyof typeof SYSTEM_GROUPS;

export const LAST_SYSTEM_GROUP_ID = 8;

/** Zulip's Realm.REALM_PERMISSION_GROUP_SETTINGS that this server keeps, with Zulip's defaults. */
export const REALM_GROUP_SETTING_DEFAULTS = {
  can_access_all_users_group: "role:everyone",
  can_add_custom_emoji_group: "role:members",
  can_add_subscribers_group: "role:members",
  can_create_bots_group: "role:members",
  can_create_groups: "role:members",
  can_create_private_channel_group: "role:members",
  can_create_public_channel_group: "role:members",
  can_create_web_public_channel_group: "role:owners",
  can_create_write_only_bots_group: "role:members",
  can_delete_any_message_group: "role:administrators",
  can_delete_own_message_group: "role:everyone",
  can_invite_users_group: "role:members",
  can_manage_all_groups: "role:owners",
  can_manage_billing_group: "role:administrators",
  can_mention_many_users_group: "role:administrators",
  can_move_messages_between_channels_group: "role:members",
  can_move_messages_between_topics_group: "role:everyone",
  can_resolve_topics_group: "role:everyone",
  can_set_topics_policy_group: "role:members",
  can_summarize_topics_group: "role:everyone",
  create_multiuse_invite_group: "role:administrators",
  direct_message_initiator_group: "role:everyone",
  direct_message_permission_group: "role:everyone",
} as const satisfies Record<string, SystemGroupName>;

export type RealmGroupSetting = keyof typeof REALM_GROUP_SETTING_DEFAULTS;

/** Channel permission settings (group-setting values) of POST /channels/create, stored and returned as given. */
export const CHANNEL_GROUP_SETTINGS = [
  "can_add_subscribers_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_remove_subscribers_group",
  "can_administer_channel_group",
  "can_move_messages_out_of_channel_group",
  "can_move_messages_within_channel_group",
  "can_send_message_group",
  "can_subscribe_group",
  "can_resolve_topics_group",
] as const;

export type ChannelGroupSetting = (typeof CHANNEL_GROUP_SETTINGS)[number];

/** Zulip's descriptions of the system groups (create_system_user_groups_for_realm), as GET /user_groups lists them. */
export const SYSTEM_GROUP_DESCRIPTIONS: Record<SystemGroupName, string> = {
  "role:owners": "Owners of this organization",
  "role:administrators": "Administrators of this organization, including owners",
  "role:moderators": "Moderators of this organization, including administrators",
  "role:fullmembers": "Members of this organization, not including new accounts and guests",
  "role:members": "Members of this organization, not including guests",
  "role:everyone": "Everyone in this organization, including guests",
  "role:internet": "Everyone on the Internet",
  "role:nobody": "Nobody",
};

/**
 * Each system group's one direct subgroup: Zulip nests them (owners in
 * administrators, ..., everyone in internet); nobody and owners have none.
 */
export const SYSTEM_GROUP_DIRECT_SUBGROUP: Partial<Record<SystemGroupName, SystemGroupName>> = {
  "role:administrators": "role:owners",
  "role:moderators": "role:administrators",
  "role:fullmembers": "role:moderators",
  "role:members": "role:fullmembers",
  "role:everyone": "role:members",
  "role:internet": "role:everyone",
};

/**
 * Zulip's NamedUserGroup.GROUP_PERMISSION_SETTINGS: each user group's own
 * permissions, their default ("group_creator": an anonymous group of the
 * creator) and whether role:everyone may hold them. System groups have
 * role:nobody for all of them; no setting allows role:internet.
 */
export const USER_GROUP_PERMISSION_SETTINGS = {
  can_add_members_group: { defaultGroup: "group_creator", allowEveryone: false },
  can_join_group: { defaultGroup: "role:nobody", allowEveryone: false },
  can_leave_group: { defaultGroup: "role:everyone", allowEveryone: true },
  can_manage_group: { defaultGroup: "group_creator", allowEveryone: false },
  can_mention_group: { defaultGroup: "role:everyone", allowEveryone: true },
  can_remove_members_group: { defaultGroup: "role:nobody", allowEveryone: false },
} as const satisfies Record<string, { defaultGroup: SystemGroupName | "group_creator"; allowEveryone: boolean }>;

export type UserGroupSetting = keyof typeof USER_GROUP_PERMISSION_SETTINGS;

export const USER_GROUP_SETTINGS = Object.keys(USER_GROUP_PERMISSION_SETTINGS) as UserGroupSetting[];

/** Zulip's NamedUserGroup.MAX_NAME_LENGTH and INVALID_NAME_PREFIXES. */
export const USER_GROUP_NAME_MAX_LENGTH = 100;
export const USER_GROUP_INVALID_NAME_PREFIXES = ["@", "role:", "user:", "stream:", "channel:"] as const;
