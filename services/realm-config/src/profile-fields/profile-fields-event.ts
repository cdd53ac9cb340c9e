import { realmConfigEvents, type EventPublisher } from "@teamchat/shared";
import { profileFieldView } from "./profile-field-view";
import type { ProfileFieldRepository } from "./profile-field.repository";

/**
 * Zulip's notify_realm_custom_profile_fields: the organization's whole list,
 * read after the change, to everyone; published before the reply, so every
 * instance's ProfileFieldList drops its copy first.
 */
export async function publishProfileFields(
  { fields, events }: { fields: ProfileFieldRepository; events: EventPublisher<"realm-config"> },
  realmId: number,
  requestId: string,
): Promise<void> {
  const all = await fields.inOrder(realmId);
  events.publish(
    realmConfigEvents.customProfileFields,
    { realmId, userIds: "all", event: { type: "custom_profile_fields", fields: all.map(profileFieldView) } },
    requestId,
  );
}
