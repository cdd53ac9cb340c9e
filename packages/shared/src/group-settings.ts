import type { GroupSettingValue, GroupSettingValueUpdate } from "./contracts/common";
import { SYSTEM_GROUPS } from "./domain/groups";
import { badRequest } from "./errors";

/**
 * Zulip's group-setting value semantics, shared by the services that keep
 * such settings (messaging's channel settings, realm-config's organization
 * settings), so both compare and normalize values alike.
 */

/**
 * Zulip's parse_group_setting_value: an anonymous group of one subgroup and no
 * users is that group, and an empty one is the nobody group.
 */
export function normalizeGroupSetting(value: GroupSettingValue): GroupSettingValue {
  if (typeof value === "number" || value.direct_members.length) return value;
  if (value.direct_subgroups.length === 1) return value.direct_subgroups[0]!;
  if (value.direct_subgroups.length === 0) return SYSTEM_GROUPS["role:nobody"];
  return value;
}

/** Zulip's are_both_group_setting_values_equal: the same group, or the same members and subgroups in any order. */
function sameGroupSetting(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  const same = (x: number[], y: number[]) => new Set(x).size === new Set(y).size && x.every((id) => y.includes(id));
  return same(a.direct_members, b.direct_members) && same(a.direct_subgroups, b.direct_subgroups);
}

/**
 * Zulip's validate_group_setting_value_change: the new value when it differs
 * from the current one, null when it does not; refused when the client's
 * `old` is not the current value (it showed its user a stale state).
 */
export function groupSettingChange(
  current: GroupSettingValue,
  update: GroupSettingValueUpdate,
): GroupSettingValue | null {
  if (
    update.old !== undefined &&
    !sameGroupSetting(normalizeGroupSetting(update.old), normalizeGroupSetting(current))
  ) {
    throw badRequest("'old' value does not match the expected value.");
  }
  const next = normalizeGroupSetting(update.new);
  return sameGroupSetting(normalizeGroupSetting(current), next) ? null : next;
}
