import {
  CHANNEL_GROUP_SETTINGS,
  REALM_GROUP_SETTING_DEFAULTS,
  SYSTEM_GROUPS,
  USER_GROUP_PERMISSION_SETTINGS,
  USER_GROUP_SETTINGS,
  badRequest,
  checkGroupsExist,
  type GroupMembership,
  type ChannelGroupSetting,
  type GroupSettingValue,
  type RealmGroupSetting,
  type SystemGroupName,
} from "@teamchat/shared";

/** Zulip's GroupPermissionSetting: which groups an organization setting may name. */
interface GroupSettingRule {
  allowNobody: boolean;
  allowEveryone: boolean;
  /** Zulip's require_system_group with allowed_system_groups */
  onlySystemGroups?: SystemGroupName[];
}

const COMMON: GroupSettingRule = { allowNobody: true, allowEveryone: false };
const ANYONE: GroupSettingRule = { allowNobody: true, allowEveryone: true };

/** Zulip's Realm.REALM_PERMISSION_GROUP_SETTINGS, for the settings kept here. */
const RULES: Record<RealmGroupSetting, GroupSettingRule> = {
  can_access_all_users_group: {
    allowNobody: false,
    allowEveryone: true,
    onlySystemGroups: ["role:everyone", "role:members"],
  },
  can_add_custom_emoji_group: COMMON,
  can_add_subscribers_group: COMMON,
  can_create_bots_group: COMMON,
  can_create_groups: COMMON,
  can_create_private_channel_group: COMMON,
  can_create_public_channel_group: COMMON,
  can_create_web_public_channel_group: {
    ...COMMON,
    onlySystemGroups: ["role:moderators", "role:administrators", "role:owners", "role:nobody"],
  },
  can_create_write_only_bots_group: COMMON,
  can_delete_any_message_group: COMMON,
  can_delete_own_message_group: ANYONE,
  can_invite_users_group: COMMON,
  can_manage_all_groups: { allowNobody: false, allowEveryone: false },
  can_manage_billing_group: { allowNobody: false, allowEveryone: false },
  can_mention_many_users_group: ANYONE,
  can_move_messages_between_channels_group: COMMON,
  can_move_messages_between_topics_group: ANYONE,
  can_resolve_topics_group: ANYONE,
  can_set_topics_policy_group: ANYONE,
  can_summarize_topics_group: ANYONE,
  create_multiuse_invite_group: COMMON,
  direct_message_initiator_group: ANYONE,
  direct_message_permission_group: ANYONE,
};

/** Settings only organization owners change (Zulip's update_realm raises OrganizationOwnerRequiredError). */
export const OWNER_ONLY_GROUP_SETTINGS: readonly RealmGroupSetting[] = [
  "create_multiuse_invite_group",
  "can_create_groups",
  "can_invite_users_group",
  "can_manage_all_groups",
  "can_manage_billing_group",
];

const GROUP_NAMES = new Map(Object.entries(SYSTEM_GROUPS).map(([name, id]) => [id as number, name as SystemGroupName]));

/**
 * Zulip's access_user_group_for_setting and check_setting_configuration_for_system_groups:
 * the groups named exist; settings limited to system groups name one of those allowed.
 * Users of an anonymous group are not checked here: realm-config does not own them.
 */
export function checkRealmGroupSetting(
  setting: RealmGroupSetting,
  value: GroupSettingValue,
  groups: GroupMembership,
): void {
  const rule = RULES[setting];
  checkGroupsExist(groups, value);
  const name = typeof value === "number" ? GROUP_NAMES.get(value) : undefined;
  if (!name) {
    // an anonymous group or a user-created one
    if (rule.onlySystemGroups) throw badRequest(`'${setting}' must be a system user group.`);
    return;
  }
  const refuse = (group: string) => badRequest(`'${setting}' setting cannot be set to '${group}' group.`);
  if (name === "role:internet") throw refuse(name);
  if (name === "role:nobody" && !rule.allowNobody) throw refuse(name);
  if (name === "role:everyone" && !rule.allowEveryone) throw refuse(name);
  if (rule.onlySystemGroups && !rule.onlySystemGroups.includes(name)) throw refuse(name);
}

/** Zulip's GroupPermissionSetting as register's server_supported_permission_settings describes it. */
export interface PermissionSettingDescription {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

const describe = (
  rule: GroupSettingRule,
  defaultGroupName: string,
  defaultForSystemGroups: string | null = null,
): PermissionSettingDescription => ({
  require_system_group: rule.onlySystemGroups !== undefined,
  allow_internet_group: false,
  allow_nobody_group: rule.allowNobody,
  allow_everyone_group: rule.allowEveryone,
  default_group_name: defaultGroupName,
  default_for_system_groups: defaultForSystemGroups,
  allowed_system_groups: rule.onlySystemGroups ?? [],
});

/**
 * Zulip's Stream.stream_permission_group_settings for the channel settings
 * kept here: the rule and the default (the channel's creator administers it).
 */
const CHANNEL_DEFAULTS: Record<ChannelGroupSetting, [GroupSettingRule, string]> = {
  can_add_subscribers_group: [COMMON, "role:nobody"],
  can_administer_channel_group: [COMMON, "channel_creator"],
  can_delete_any_message_group: [ANYONE, "role:nobody"],
  can_delete_own_message_group: [ANYONE, "role:nobody"],
  can_move_messages_out_of_channel_group: [ANYONE, "role:nobody"],
  can_move_messages_within_channel_group: [ANYONE, "role:nobody"],
  can_remove_subscribers_group: [ANYONE, "role:administrators"],
  can_resolve_topics_group: [ANYONE, "role:nobody"],
  can_send_message_group: [ANYONE, "role:everyone"],
  can_subscribe_group: [COMMON, "role:nobody"],
};

/** register's server_supported_permission_settings: the rules of every group setting of organizations, channels and groups. */
export const SUPPORTED_PERMISSION_SETTINGS = {
  realm: Object.fromEntries(
    (Object.keys(RULES) as RealmGroupSetting[]).map((k) => [k, describe(RULES[k], REALM_GROUP_SETTING_DEFAULTS[k])]),
  ),
  stream: Object.fromEntries(
    CHANNEL_GROUP_SETTINGS.map((k) => [k, describe(CHANNEL_DEFAULTS[k][0], CHANNEL_DEFAULTS[k][1])]),
  ),
  group: Object.fromEntries(
    USER_GROUP_SETTINGS.map((k) => {
      const { defaultGroup, allowEveryone } = USER_GROUP_PERMISSION_SETTINGS[k];
      return [k, describe({ allowNobody: true, allowEveryone }, defaultGroup, "role:nobody")];
    }),
  ),
};
