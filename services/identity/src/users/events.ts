import { Role, type PayloadOf, type RealmRef, type identityEvents } from "@teamchat/shared";
import type { SettingName, SettingValue } from "./settings";
import type { UserDoc } from "./user.schema";
import { toUserResource } from "./user-view";

/** A realm_user update of one property (Zulip sends one event per changed property), seen by everyone. */
export const personUpdated = (
  realmId: number,
  person: identityEvents.PersonUpdate,
): PayloadOf<typeof identityEvents.realmUser> => ({
  realmId,
  userIds: "all",
  event: { type: "realm_user", op: "update", person },
});

/** realm_user add: everyone may learn of a new user (the default visibility shows the real address to all). */
export const userAdded = (user: UserDoc, realm: RealmRef): PayloadOf<typeof identityEvents.realmUser> => ({
  realmId: realm.id,
  userIds: "all",
  event: {
    type: "realm_user",
    op: "add",
    person: toUserResource(user, { userId: 0, role: Role.GUEST }, realm, {
      client_gravatar: false,
      include_custom_profile_fields: true,
    }),
  },
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
