import type { MessageDoc } from "../messages/message.schema";

/** Zulip's DIGEST_CUTOFF: a digest covers these last days, and goes to users inactive for as long. */
export const DIGEST_CUTOFF_DAYS = 5;
/** Zulip's MAX_HOT_TOPICS_TO_BE_INCLUDED_IN_DIGEST. */
export const MAX_HOT_TOPICS = 4;
/** Hot topics picked first by how many people wrote in them (Zulip's get_hot_topics), before length. */
const MOST_DIVERSE_TOPICS = 2;
/** Messages shown of each hot conversation (Zulip's DigestTopic.sample_messages). */
const SAMPLE_MESSAGES = 2;

/** What the digest needs of a message's sender. */
export interface DigestSender {
  fullName: string;
  isBot: boolean;
}

export type DigestMessage = Pick<MessageDoc, "messageId" | "senderId" | "topic" | "content" | "renderedContent">;

/**
 * One topic's traffic since the cutoff (Zulip's DigestTopic): its first
 * messages, and the messages and names of its human senders.
 */
export interface DigestTopic {
  channelId: number;
  topic: string;
  sampleMessages: DigestMessage[];
  humanSenders: Set<string>;
  humanMessages: number;
}

/**
 * A channel's topics from its messages since the cutoff, oldest first (Zulip's
 * get_recent_topics): a topic is its exact name, as Zulip's topic_key.
 */
export function topicsOf(
  channelId: number,
  messages: DigestMessage[],
  senders: ReadonlyMap<number, DigestSender>,
): DigestTopic[] {
  const topics = new Map<string, DigestTopic>();
  for (const m of messages) {
    let topic = topics.get(m.topic);
    if (!topic) {
      topic = { channelId, topic: m.topic, sampleMessages: [], humanSenders: new Set(), humanMessages: 0 };
      topics.set(m.topic, topic);
    }
    if (topic.sampleMessages.length < SAMPLE_MESSAGES) topic.sampleMessages.push(m);
    const sender = senders.get(m.senderId);
    if (sender && !sender.isBot) {
      topic.humanSenders.add(sender.fullName);
      topic.humanMessages++;
    }
  }
  return [...topics.values()];
}

/** The `n` greatest by `key`, ties in their given order (Python's heapq.nlargest). */
const largest = <T>(items: T[], n: number, key: (item: T) => number): T[] =>
  [...items].sort((a, b) => key(b) - key(a)).slice(0, n);

/**
 * Zulip's get_hot_topics: the two topics with the most human senders, then
 * the longest (most human messages) up to four.
 */
export function hotTopics(topics: DigestTopic[]): DigestTopic[] {
  const hot = largest(topics, MOST_DIVERSE_TOPICS, (t) => t.humanSenders.size);
  for (const topic of largest(topics, MAX_HOT_TOPICS, (t) => t.humanMessages)) {
    if (!hot.includes(topic)) hot.push(topic);
    if (hot.length === MAX_HOT_TOPICS) break;
  }
  return hot;
}

/**
 * Zulip's enough_traffic: a digest is sent for a new channel, else for new
 * messages when content is hidden, else for a hot conversation.
 */
export function enoughTraffic(
  hotConversations: number,
  newChannels: number,
  newMessages: number,
  showContent: boolean,
): boolean {
  if (newChannels > 0) return true;
  if (!showContent) return newMessages > 0;
  return hotConversations > 0;
}

/** Zulip's weekday numbering (Realm.digest_weekday): Monday 0 .. Sunday 6, in UTC. */
export const zulipWeekday = (at: Date): number => (at.getUTCDay() + 6) % 7;

/** The Monday (UTC, YYYY-MM-DD) of the week `at` is in: the one digest per user and week is keyed by it. */
export function weekOf(at: Date): string {
  const monday = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - zulipWeekday(at)));
  return monday.toISOString().slice(0, 10);
}
