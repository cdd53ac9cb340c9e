import type { PayloadOf, identityEvents } from "@teamchat/shared";
import type { SettingName, SettingValue } from "./settings";

/** A realm_user update of one property (Zulip sends one event per changed property), seen by everyone. */
export const personUpdated = (
  realmId: number,
  person: identityEvents.PersonUpdate,
): PayloadOf<typeof identityEvents.realmUser> => ({
  realmId,
  userIds: "all",
  event: { type: "realm_user", op: "update", person },
});

/** A user_settings update of one of the user's own settings, to that user alone. */
export const ownSettingChanged = (
  realmId: number,
  userId: number,
  property: SettingName | "timezone",
  value: SettingValue,
): PayloadOf<typeof identityEvents.userSettings> => ({
  realmId,
  userIds: [userId],
  event: { type: "user_settings", op: "update", property, value },
});
