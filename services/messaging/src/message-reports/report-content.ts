import { directMessageUrl, messageLink, messaging, silentMention } from "@teamchat/shared";
import { truncate, unusedFence } from "../messages/message-content";
import type { MessageDoc } from "../messages/message.schema";

/** Who a report names: a user's id and full name. */
interface Person {
  user_id: number;
  full_name: string;
}

/** Zulip's datetime_to_global_time: `<time:…>`, which every reader sees in their own time zone. */
const globalTime = (seconds: number): string =>
  `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "+00:00")}>`;

/** Zulip's get_user_mentions_for_display: sorted silent mentions, "A and B", "A, B, and C". */
function mentionList(people: Person[]): string {
  const mentions = people.map(silentMention).sort();
  const last = mentions.pop()!;
  if (mentions.length === 0) return last;
  return `${mentions.join(", ")}${mentions.length > 1 ? "," : ""} and ${last}`;
}

export interface ReportedMessage {
  message: MessageDoc;
  /** the channel a channel message is in (with its current name) */
  channel: { streamId: number; name: string } | null;
  sender: Person;
  /** a direct message's participants, the sender among them */
  participants: Person[];
}

/**
 * The report Notification Bot posts (Zulip's send_message_report): who
 * reported whose message and when, the reason and the reporter's words in a
 * quote, and the message itself behind a spoiler, cut to leave room for the
 * rest within the organization's message length.
 */
export function reportContent(
  realmUrl: string,
  maxMessageLength: number,
  reporter: Person,
  reported: ReportedMessage,
  reportType: messaging.ReportType,
  description: string,
): string {
  const { message, channel, sender, participants } = reported;
  const by = `${silentMention(reporter)} reported a`;
  const sentBy = `sent by ${silentMention(sender)}`;
  const at = `at ${globalTime(message.timestamp)}.`;
  let header: string;
  let original: string;
  if (channel) {
    header = `${by} message ${sentBy} ${at}`;
    original = `Original message at ${messageLink(channel, message.topic, message.messageId)}`;
  } else {
    const others = participants.filter((p) => p.user_id !== sender.user_id);
    if (participants.length > 2) header = `${by} direct message ${sentBy} to ${mentionList(others)} ${at}`;
    else if (sender.user_id !== reporter.user_id) header = `${by} direct message ${sentBy} ${at}`;
    // reporting one's own direct message names the other end (oneself, for a message to oneself)
    else header = `${by} direct message ${sentBy} to ${silentMention(others[0] ?? sender)} ${at}`;
    const ids = participants.map((p) => p.user_id);
    original = `[Original message](${directMessageUrl(realmUrl, ids, message.messageId)})`;
  }
  // Zulip's MAX_REPORT_MESSAGE_SNIPPET_LENGTH: room for the explanation and 500 characters of frame
  const snippetLength = maxMessageLength - messaging.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH - 500;
  const quoted = truncate(message.content, snippetLength, "\n[message truncated]");
  const fence = unusedFence(quoted);
  return (
    `${header}\n` +
    "```quote\n" +
    `**${messaging.REPORT_MESSAGE_REASONS[reportType]}**. ${description}\n` +
    "```\n\n" +
    `${fence} spoiler ${original}\n${quoted}\n${fence}\n`
  );
}
