import {
  LIMITS,
  badRequest,
  directMessageUrl,
  messageLink,
  messageUrl,
  messaging,
  silentMention,
} from "@teamchat/shared";
import { truncate, unusedFence } from "../messages/message-content";
import type { MessageDoc } from "../messages/message.schema";

/** Zulip's normalize_note_text: trailing space and leading blank lines go; a longer note is refused. */
function normalizeNote(note: string): string {
  const body = note.trimEnd().replace(/^\n+/, "");
  if (body.length > messaging.MAX_REMINDER_NOTE_LENGTH) {
    throw badRequest(`Maximum reminder note length: ${messaging.MAX_REMINDER_NOTE_LENGTH} characters`);
  }
  return body;
}

/**
 * The reminder's text (Zulip's get_reminder_formatted_content): what it is
 * about, the user's note quoted, then who said what, linked, with the message
 * quoted and cut to fit Zulip's MAX_MESSAGE_LENGTH (a poll or to-do list is
 * named instead of quoted).
 */
export function reminderContent(
  realmUrl: string,
  message: MessageDoc,
  channel: { streamId: number; name: string } | null,
  sender: { user_id: number; full_name: string },
  note: string | undefined,
): string {
  const normalizedNote = note ? normalizeNote(note) : "";
  const about = channel
    ? `You requested a reminder for ${messageLink(channel, message.topic, message.messageId)}.`
    : "You requested a reminder for the following direct message.";
  let content = `${about}${normalizedNote ? ` Note:\n > ${normalizedNote}` : ""}\n\n`;
  const url = channel
    ? messageUrl(realmUrl, channel, message.topic, message.messageId)
    : directMessageUrl(realmUrl, message.receivers, message.messageId);
  const who = silentMention(sender);
  const widget = message.content.startsWith("/poll")
    ? "poll"
    : message.content.startsWith("/todo")
      ? "todo list"
      : null;
  if (widget) return `${content}${who} [sent](${url}) a ${widget}.`;
  content += `${who} [said](${url}):\n`;
  const fence = unusedFence(content);
  const frame = (body: string) => `${fence}quote\n${body}\n${fence}`;
  const room = LIMITS.max_message_length - (content + frame("")).length;
  return content + frame(truncate(message.content, room, "\n[message truncated]"));
}
