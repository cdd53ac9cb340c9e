import type { GroupSettingValue, GroupSettingValueUpdate } from "./contracts/common";
import { badRequest } from "./errors";
import { parseGroupSettingValue, sameGroupSettingValue } from "./user-groups";

/*
 * Zulip's group-setting value changes, shared by the services that keep such
 * settings (messaging's channel settings, realm-config's organization
 * settings), so both compare and normalize values alike.
 */

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
