import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { identityEvents, realmConfigEvents, subscribeEvent, type EventPublisher } from "@teamchat/shared";
import { personUpdated } from "./events";
import type { UserRepository } from "./user.repository";

/**
 * Drops users' values of a custom profile field realm-config deleted, or of
 * list choices it removed (Zulip deletes the CustomProfileFieldValue rows with
 * them). One instance does it (a queue group); then every instance forgets its
 * copy of the users. Removed choices are told to everyone as Zulip's
 * remove_custom_profile_field_value_if_required does (a realm_user update with
 * value null); a deleted field's values are not, as clients drop them with the
 * field on custom_profile_fields.
 */
export function dropProfileFieldValues(
  users: UserRepository,
  events: EventPublisher<"identity">,
  nc: NatsConnection,
  log: Logger,
): Subscription {
  return subscribeEvent(
    nc,
    realmConfigEvents.profileFieldValuesDropped,
    ({ realmId, fieldId, choices }, { requestId }) => {
      users
        .dropProfileValues(realmId, fieldId, choices)
        .then((holders) => {
          if (!holders.length) return;
          events.publish(identityEvents.usersChanged, { realmId }, requestId);
          if (choices === null) return;
          for (const user_id of holders) {
            const person = { user_id, custom_profile_field: { id: fieldId, value: null } };
            events.publish(identityEvents.realmUser, personUpdated(realmId, person), requestId);
          }
          log.info({ realmId, fieldId, users: holders.length }, "custom profile field values dropped");
        })
        .catch((err: unknown) => log.error({ err, realmId, fieldId }, "dropping custom profile field values failed"));
    },
    { log, queue: "identity.profile-field-values" },
  );
}
