/**
 * The Markdown the server writes into its own messages to point at users,
 * channels, topics and messages: Zulip's silent_mention_syntax_for_user,
 * topic_link_util.py (get_stream_link_syntax, get_stream_topic_link_syntax)
 * and url_encoding.py (encode_channel, stream_message_url).
 */
import { isPrintable, unprintablePosition } from "../domain/printable";

/** Zulip's silent_mention_syntax_for_user: names the user without notifying them. */
export const silentMention = (user: { full_name: string; user_id: number }): string =>
  `@_**${user.full_name}|${user.user_id}**`;

/** Characters that break #**channel>topic** syntax (Zulip's invalid_stream_topic_regex). */
const BREAKS_LINK_SYNTAX = /[`>*&[\]]|(\$\$)/g;
const ESCAPES: Record<string, string> = {
  "`": "&#96;",
  ">": "&gt;",
  "*": "&#42;",
  "&": "&amp;",
  $$: "&#36;&#36;",
  "[": "&#91;",
  "]": "&#93;",
};
/**
 * A topic stored before Zulip's check_stream_topic was applied may hold
 * characters no message may (a NUL among them): its link is the escaped one,
 * each such character shown as U+FFFD, so the notice naming it can be sent.
 */
const breaksLinkSyntax = (name: string): boolean =>
  new RegExp(BREAKS_LINK_SYNTAX.source).test(name) || unprintablePosition(name) !== null;
const escapeForLinkText = (text: string): string =>
  Array.from(
    text.replace(BREAKS_LINK_SYNTAX, (m) => ESCAPES[m] ?? m),
    (c) => (isPrintable(c) ? c : "\uFFFD"),
  ).join("");

/** Zulip's encode_hash_component: URL-quoted with "*" kept, then "." → "%2E" and "%" → ".". */
export const encodeHashComponent = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[!'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2A/g, "*")
    .replace(/\./g, "%2E")
    .replace(/%/g, ".");

/** Zulip's encode_channel: `<id>-<name with spaces as dashes>`. */
export const encodeChannel = (streamId: number, name: string): string =>
  `${streamId}-${encodeHashComponent(name.replace(/ /g, "-"))}`;

/** Zulip's EMPTY_TOPIC_FALLBACK_NAME, shown for the "" topic in link text. */
const EMPTY_TOPIC_FALLBACK_NAME = "general chat";

/** Zulip's get_fallback_markdown_link: a plain Markdown link when the #** syntax would break. */
function fallbackLink(streamId: number, name: string, topic?: string, messageId?: number): string {
  let link = `#narrow/channel/${encodeChannel(streamId, name)}`;
  let text = `#${escapeForLinkText(name)}`;
  if (topic !== undefined) {
    link += `/topic/${encodeHashComponent(topic)}`;
    text += ` > ${escapeForLinkText(topic === "" ? EMPTY_TOPIC_FALLBACK_NAME : topic)}`;
  }
  if (messageId !== undefined) {
    link += `/near/${messageId}`;
    text += " @ 💬";
  }
  return `[${text}](${link})`;
}

/** Zulip's get_stream_link_syntax: `#**channel**`. */
export const channelLink = (channel: { streamId: number; name: string }): string =>
  breaksLinkSyntax(channel.name) ? fallbackLink(channel.streamId, channel.name) : `#**${channel.name}**`;

/** Zulip's get_stream_topic_link_syntax: `#**channel>topic**`. */
export const topicLink = (channel: { streamId: number; name: string }, topic: string): string =>
  breaksLinkSyntax(channel.name) || breaksLinkSyntax(topic)
    ? fallbackLink(channel.streamId, channel.name, topic)
    : `#**${channel.name}>${topic}**`;

/** Zulip's stream_message_url: the message's permalink in its channel and topic. */
export const messageUrl = (
  realmUrl: string,
  channel: { streamId: number; name: string },
  topic: string,
  messageId: number,
): string =>
  `${realmUrl}/#narrow/channel/${encodeChannel(channel.streamId, channel.name)}/topic/${encodeHashComponent(topic)}/near/${messageId}`;

/** Zulip's get_message_link_syntax: `#**channel>topic@id**`. */
export const messageLink = (channel: { streamId: number; name: string }, topic: string, messageId: number): string =>
  breaksLinkSyntax(channel.name) || breaksLinkSyntax(topic)
    ? fallbackLink(channel.streamId, channel.name, topic, messageId)
    : `#**${channel.name}>${topic}@${messageId}**`;

/** Zulip's pm_message_url and encode_user_ids: a direct message's permalink, "-group" marking three or more people. */
export const directMessageUrl = (realmUrl: string, participantIds: readonly number[], messageId: number): string =>
  `${realmUrl}/#narrow/dm/${[...participantIds].sort((a, b) => a - b).join(",")}${participantIds.length >= 3 ? "-group" : ""}/near/${messageId}`;
