import {
  EventPublisher,
  identityEvents,
  notifications,
  realmConfigEvents,
  type Audience,
  type ParamsIn,
} from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import type { TestOrganization } from "../../../test/support/organization";

/** The event types of the queues these tests register: the two the catalogue lets a test publish to chosen users, and typing. */
export const QUEUE_EVENT_TYPES = ["user_settings", "custom_profile_fields", "typing", "typing_edit_message"];

export const setting = (value: string) =>
  ({ type: "user_settings", op: "update", property: "default_language", value }) as const;

export const noProfileFields = { type: "custom_profile_fields" as const, fields: [] };

/**
 * Real catalogue events, published as identity and realm-config publish them,
 * for the tests of the queues themselves (who gets what, ids,
 * acknowledgement, wakes): they need events for chosen users at chosen
 * times, not either service's behaviour.
 */
export function catalogueEvents(org: Pick<TestOrganization, "nc" | "realm">) {
  const identity = new EventPublisher(org.nc, "identity");
  const realmConfig = new EventPublisher(org.nc, "realm-config");
  const realmId = org.realm.id;
  return {
    /** user_settings: default_language is `value` */
    setting: (userIds: Audience, value: string) =>
      identity.publish(identityEvents.userSettings, { realmId, userIds, event: setting(value) }),
    /** custom_profile_fields: the organization has none */
    noProfileFields: (userIds: Audience) =>
      realmConfig.publish(realmConfigEvents.customProfileFields, { realmId, userIds, event: noProfileFields }),
  };
}

export async function registerQueue(
  org: TestOrganization,
  user: Credentials,
  params: ParamsIn<typeof notifications.registerQueue> = {},
): Promise<string> {
  return (await org.call(notifications.registerQueue, { event_types: QUEUE_EVENT_TYPES, ...params }, user)).queue_id;
}
