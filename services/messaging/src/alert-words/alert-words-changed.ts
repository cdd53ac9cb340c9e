import { messagingEvents, type HandlerContext, type EventPublisher } from "@teamchat/shared";
import type { AlertWordIndex } from "./alert-word-index";

/**
 * Zulip's notify_alert_words: the user's words as stored now go to their
 * queues and to every instance's AlertWordIndex. Returns them (the reply's
 * alert_words).
 */
export async function publishAlertWords(
  deps: { alertWords: AlertWordIndex; events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
): Promise<string[]> {
  const words = await deps.alertWords.stored.ofUser(realmId, userId);
  deps.events.publish(
    messagingEvents.alertWordsChanged,
    { realmId, userIds: [userId], event: { type: "alert_words", alert_words: words } },
    ctx.requestId,
  );
  return words;
}
