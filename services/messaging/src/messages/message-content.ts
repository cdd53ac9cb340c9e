import { badRequest, type realmConfig } from "@teamchat/shared";
import type { ChannelDoc } from "../channels/channel.schema";

/** Zulip's truncate_content: over-long text is cut and marked, not refused. */
const truncate = (text: string, max: number, suffix: string): string =>
  text.length > max ? text.slice(0, max - suffix.length) + suffix : text;

/** Zulip's normalize_body: a message's Markdown as stored. */
export function normalizeContent(content: string, settings: realmConfig.RealmSettings): string {
  const body = content.trimEnd();
  if (body.trim() === "") throw badRequest("Message must not be empty");
  if (body.includes("\0")) throw badRequest("Message must not contain null bytes");
  return truncate(body, settings.max_message_length, "\n[message truncated]");
}

/**
 * A channel message's topic as stored: trimmed, the empty-topic display name
 * meaning "" (Zulip's empty topic), allowed by the channel's topics policy,
 * truncated.
 */
export function normalizeTopic(given: string, settings: realmConfig.RealmSettings, channel: ChannelDoc): string {
  let topic = given.trim();
  if (topic === settings.realm_empty_topic_display_name) topic = "";
  if (topic === "" && channel.topicsPolicy === "disable_empty_topic") {
    throw badRequest("Sending messages to the general chat is not allowed in this channel.");
  }
  if (topic !== "" && channel.topicsPolicy === "empty_topic_only") {
    throw badRequest("Only the general chat topic is allowed in this channel.");
  }
  return truncate(topic, settings.max_topic_length, "...");
}
