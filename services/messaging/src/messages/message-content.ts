import { badRequest, pythonStrip, unprintablePosition, type realmConfig } from "@teamchat/shared";
import type { ChannelDoc } from "../channels/channel.schema";

/** Zulip's truncate_content: over-long text is cut and marked, not refused. */
export const truncate = (text: string, max: number, suffix: string): string =>
  text.length > max ? text.slice(0, max - suffix.length) + suffix : text;

/** Zulip's get_unused_fence: a backtick fence longer than any fence opening a line of `content`. */
export function unusedFence(content: string): string {
  const runs = [...content.matchAll(/^ {0,3}(`{3,})/gm)].map((m) => m[1]!.length + 1);
  return "`".repeat(Math.max(3, ...runs));
}

/** Zulip's normalize_body: a message's Markdown as stored. */
export function normalizeContent(content: string, settings: realmConfig.RealmSettings): string {
  const body = content.trimEnd();
  if (body.trim() === "") throw badRequest("Message must not be empty");
  if (body.includes("\0")) throw badRequest("Message must not contain null bytes");
  return truncate(body, settings.max_message_length, "\n[message truncated]");
}

/** Zulip's get_stream_topics_policy: the channel's own topics policy, or the organization's for "inherit". */
export const topicsPolicyOf = (
  channel: Pick<ChannelDoc, "topicsPolicy">,
  settings: Pick<realmConfig.RealmSettings, "topics_policy">,
): ChannelDoc["topicsPolicy"] => (channel.topicsPolicy === "inherit" ? settings.topics_policy : channel.topicsPolicy);

/**
 * Whether the channel's topics policy allows messages in this topic: the
 * empty topic where it is disabled (for messages sent or moved there: Zulip's
 * build_message_edit_request lets a content edit stay in it), another topic
 * where only the empty one is allowed.
 */
export function checkTopicAllowed(
  topic: string,
  settings: realmConfig.RealmSettings,
  channel: ChannelDoc,
  arriving: boolean,
): void {
  const policy = topicsPolicyOf(channel, settings);
  if (topic === "" && arriving && policy === "disable_empty_topic") {
    throw badRequest("Sending messages to the general chat is not allowed in this channel.");
  }
  if (topic !== "" && policy === "empty_topic_only") {
    throw badRequest("Only the general chat topic is allowed in this channel.");
  }
}

/**
 * A channel message's topic as stored: the empty-topic display name meaning
 * "" (Zulip's empty topic), allowed by the channel's topics policy (the
 * organization's for "inherit"), truncated.
 */
function topicAsStored(topic: string, settings: realmConfig.RealmSettings, channel: ChannelDoc): string {
  const named = topic === settings.realm_empty_topic_display_name ? "" : topic;
  checkTopicAllowed(named, settings, channel, true);
  return truncateTopic(named, settings);
}

/**
 * A topic a client gives (sending, scheduling, editing or moving), stripped
 * as Python strips it and refused with Zulip's check_stream_topic error when
 * a character is not printable, then as stored.
 */
export function normalizeTopic(given: string, settings: realmConfig.RealmSettings, channel: ChannelDoc): string {
  const topic = pythonStrip(given);
  const position = unprintablePosition(topic);
  if (position !== null) throw badRequest(`Invalid character in topic, at position ${position}!`);
  return topicAsStored(topic, settings, channel);
}

/**
 * A topic the server already holds (a message moving to another channel in
 * its own topic, Notification Bot's notices in a move's topics), as stored:
 * its characters are not checked again, so a topic stored before that check
 * existed still moves and gets its notices.
 */
export const normalizeStoredTopic = (topic: string, settings: realmConfig.RealmSettings, channel: ChannelDoc): string =>
  topicAsStored(pythonStrip(topic), settings, channel);

/** Zulip's truncate_topic. */
export const truncateTopic = (topic: string, settings: Pick<realmConfig.RealmSettings, "max_topic_length">): string =>
  truncate(topic, settings.max_topic_length, "...");
