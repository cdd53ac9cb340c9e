import { badRequest, messaging } from "@teamchat/shared";
import type { EventQueueDoc } from "./event-queues/event-queue.schema";

type QueueFilter = Pick<EventQueueDoc, "eventTypes" | "narrow" | "clientCapabilities">;

/** Zulip's ClientDescriptor.accepts_event, for every event but messages (acceptsMessage). */
export function accepts(q: QueueFilter, event: { type: string }): boolean {
  if (!wantsType(q, event.type)) return false;
  // channel typing only for clients that declared they handle it
  if (event.type === "typing" && "stream_id" in event) return q.clientCapabilities.stream_typing_notifications === true;
  // URL templates are not the format strings older clients expect (zulip.yaml, client_capabilities)
  if (event.type === "realm_linkifiers") return q.clientCapabilities.linkifier_url_template === true;
  return true;
}

/** Zulip's ClientDescriptor.accepts_event for a message event: the type, then the queue's narrow. */
export const acceptsMessage = (q: QueueFilter, message: messaging.Message, flags: string[]): boolean =>
  wantsType(q, "message") && matchesNarrow(q.narrow, message, flags);

function wantsType(q: Pick<QueueFilter, "eventTypes">, type: string): boolean {
  if (q.eventTypes === null) return true;
  // clients asking for both get user_topic only
  if (type === "muted_topics" && q.eventTypes.includes("user_topic")) return false;
  return q.eventTypes.includes(type);
}

/** Operators an event queue's narrow may use (Zulip's check_narrow_for_events). */
const EVENT_OPERATORS = new Set(["channel", "stream", "topic", "sender", "is"]);

/** Zulip's check_narrow_for_events: register refuses what its narrow predicate cannot test. */
export function checkEventNarrow(narrow: string[][]): void {
  for (const [operator = "", operand] of narrow) {
    if (!EVENT_OPERATORS.has(operator)) throw badRequest(`Operator ${operator} not supported.`);
    if (operator === "is" && operand === "followed") throw badRequest(`Operand ${operand} not supported.`);
  }
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Zulip's build_narrow_predicate for event queues: every [operator, operand]
 * must hold; an is: operand it does not test (is:muted) holds for every message.
 */
function matchesNarrow(narrow: string[][], message: messaging.Message, flags: string[]): boolean {
  return narrow.every(([operator, operand = ""]) => {
    switch (operator) {
      case "stream":
      case "channel":
        return message.type === "stream" && same(message.display_recipient, operand);
      case "topic":
        return message.type === "stream" && same(message.subject, operand);
      case "sender":
        return same(message.sender_email, operand);
      case "is":
        if (operand === "dm" || operand === "private") return message.type === "private";
        if (operand === "starred") return flags.includes("starred");
        if (operand === "mentioned") return messaging.MENTION_FLAGS.some((f) => flags.includes(f));
        if (operand === "alerted") return flags.includes("has_alert_word");
        if (operand === "unread") return !flags.includes("read");
        if (operand === "resolved")
          return message.type === "stream" && message.subject.startsWith(messaging.RESOLVED_TOPIC_PREFIX);
        return true;
      default:
        return false;
    }
  });
}
