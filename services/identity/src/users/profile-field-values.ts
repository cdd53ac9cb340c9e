import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  DURABLE_CONSUMERS,
  consumeDurably,
  identityEvents,
  realmConfigEvents,
  type EventPublisher,
  type PayloadOf,
} from "@teamchat/shared";
import { personUpdated } from "./events";
import type { UserRepository } from "./user.repository";

type Dropped = PayloadOf<typeof realmConfigEvents.profileFieldValuesDropped>;

/**
 * Drops users' values of a custom profile field realm-config deleted, or of
 * list choices it removed (Zulip deletes the CustomProfileFieldValue rows with
 * them), from identity's durable consumer: one instance does it, and an event
 * that arrived while identity was down waits for it. Then every instance
 * forgets its copy of the users. Removed choices are told to everyone as
 * Zulip's remove_custom_profile_field_value_if_required does (a realm_user
 * update with value null); a deleted field's values are not, as clients drop
 * them with the field on custom_profile_fields. Doing it twice changes nothing.
 */
export function dropProfileFieldValues(
  users: UserRepository,
  events: EventPublisher<"identity">,
  nc: NatsConnection,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const drop = async ({ realmId, fieldId, choices }: Dropped, requestId?: string) => {
    const holders = await users.dropProfileValues(realmId, fieldId, choices);
    if (!holders.length) return;
    await events.publishAndWait(identityEvents.usersChanged, { realmId }, requestId);
    if (choices !== null) {
      for (const user_id of holders) {
        const person = { user_id, custom_profile_field: { id: fieldId, value: null } };
        await events.publishAndWait(identityEvents.realmUser, personUpdated(realmId, person), requestId);
      }
    }
    log.info({ realmId, fieldId, users: holders.length, requestId }, "custom profile field values dropped");
  };
  const def = realmConfigEvents.profileFieldValuesDropped;
  return consumeDurably(
    nc,
    DURABLE_CONSUMERS.profileFieldValues,
    new Map([[def.subject, { def, handle: (payload, { requestId }) => drop(payload as Dropped, requestId) }]]),
    log,
  );
}
