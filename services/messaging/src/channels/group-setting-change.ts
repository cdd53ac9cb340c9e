import {
  badRequest,
  parseGroupSettingValue,
  sameGroupSettingValue,
  type GroupSettingValue,
  type GroupSettingValueUpdate,
} from "@teamchat/shared";

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
    !sameGroupSettingValue(parseGroupSettingValue(update.old), parseGroupSettingValue(current))
  ) {
    throw badRequest("'old' value does not match the expected value.");
  }
  const next = parseGroupSettingValue(update.new);
  return sameGroupSettingValue(parseGroupSettingValue(current), next) ? null : next;
}
