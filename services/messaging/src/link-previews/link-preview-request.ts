import { messagingEvents, type EventPublisher, type PayloadOf } from "@teamchat/shared";

/**
 * Zulip's embed_links queue, asked after a send or an edit whose rendering
 * lists links not fetched yet: published as a domain event, so that the
 * fetches happen after the reply and survive the instance that sent it.
 */
export function requestLinkPreviews(
  events: EventPublisher<"messaging">,
  requestId: string,
  wanted: PayloadOf<typeof messagingEvents.linkPreviewsWanted>,
): void {
  if (wanted.urls.length > 0) events.publish(messagingEvents.linkPreviewsWanted, wanted, requestId);
}
