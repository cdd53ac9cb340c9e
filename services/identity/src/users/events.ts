import type { PayloadOf, identityEvents } from "@teamchat/shared";

/** A realm_user update of one property (Zulip sends one event per changed property), seen by everyone. */
export const personUpdated = (
  realmId: number,
  person: identityEvents.PersonUpdate,
): PayloadOf<typeof identityEvents.realmUser> => ({
  realmId,
  userIds: "all",
  event: { type: "realm_user", op: "update", person },
});
