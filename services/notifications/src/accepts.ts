import type { EventQueueDoc } from "./event-queues/event-queue.schema";
import type { ZulipEvent } from "./event-store";

type QueueFilter = Pick<EventQueueDoc, "eventTypes" | "narrow" | "clientCapabilities">;

/** Zulip's ClientDescriptor.accepts_event: does this queue want this event? */
export function accepts(q: QueueFilter, event: ZulipEvent): boolean {
  if (q.eventTypes !== null) {
    if (!q.eventTypes.includes(event.type)) return false;
    // clients asking for both get user_topic only
    if (event.type === "muted_topics" && q.eventTypes.includes("user_topic")) return false;
  }
  if (event.type === "message") return matchesNarrow(q.narrow, event);
  // channel typing only for clients that declared they handle it
  if (event.type === "typing" && "stream_id" in event) return q.clientCapabilities.stream_typing_notifications === true;
  return true;
}

interface MessageEvent {
  message?: { type?: string; display_recipient?: unknown; subject?: string; sender_email?: string };
  flags?: string[];
}

const same = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();

/** Zulip's narrow predicate for event queues: every [operator, operand] must hold. */
function matchesNarrow(narrow: string[][], event: ZulipEvent): boolean {
  const { message = {}, flags = [] } = event as MessageEvent;
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
        if (operand === "mentioned") return flags.includes("mentioned") || flags.includes("wildcard_mentioned");
        if (operand === "alerted") return flags.includes("has_alert_word");
        if (operand === "unread") return !flags.includes("read");
        return false;
      default:
        return false;
    }
  });
}
