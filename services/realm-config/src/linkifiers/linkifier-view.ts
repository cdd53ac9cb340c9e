import { realmConfigEvents, type EventPublisher, type realmConfig } from "@teamchat/shared";
import type { LinkifierRepository } from "./linkifier.repository";
import type { LinkifierDoc } from "./linkifier.schema";

/** Zulip's LinkifierDict. */
export const linkifierView = (l: LinkifierDoc): realmConfig.RealmLinkifier => ({
  pattern: l.pattern,
  url_template: l.urlTemplate,
  id: l.linkifierId,
});

/**
 * Zulip's notify_linkifiers: the organization's whole list, read again after
 * the write, to everyone in it (before the reply: messaging's caches drop their
 * copy on it, so a message sent after the reply is rendered with the change).
 */
export async function publishLinkifiers(
  { linkifiers, events }: { linkifiers: LinkifierRepository; events: EventPublisher<"realm-config"> },
  realmId: number,
  requestId: string,
): Promise<void> {
  const list = (await linkifiers.inOrder(realmId)).map(linkifierView);
  events.publish(
    realmConfigEvents.realmLinkifiers,
    { realmId, userIds: "all", event: { type: "realm_linkifiers", realm_linkifiers: list } },
    requestId,
  );
}
