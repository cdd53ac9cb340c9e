import type { TenantFilter } from "@teamchat/shared";
import type { ContentFeature, NarrowCondition, ReceivedRanges, TopicRef } from "./conditions";
import { receivedWith } from "../user-messages/receiver-cache";
import { RESOLVED_TOPIC_PREFIX } from "../messages/edit-policy";
import { isSearchTerm } from "../search/search-engine";
import type { MessageDoc } from "../messages/message.schema";

type Filter = TenantFilter<MessageDoc>;
/** A narrow's test of a message in memory (narrowMatch). */
export type Match = (m: MessageDoc) => boolean;

/** The ids ascending: these ids when they already are (one pass), else a sorted copy. */
export function ascending(ids: readonly number[]): readonly number[] {
  for (let i = 1; i < ids.length; i++) if (ids[i - 1]! >= ids[i]!) return [...new Set(ids)].sort((a, b) => a - b);
  return ids;
}

function sortedIncludes(ids: readonly number[], id: number): boolean {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = ids[mid]!;
    if (at === id) return true;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

const topicKeyOf = (t: TopicRef): string => `${t.streamId}:${t.key}`;

/** Whether a message is a channel message in one of these topics (keys made by topicKeyOf). */
const inTopics =
  (keys: ReadonlySet<string>): Match =>
  (m) =>
    m.streamId !== null && keys.has(`${m.streamId}:${m.topicKey}`);

/** What has: reads of a message: the features stored with it, and its reactions. */
const HAS: Record<ContentFeature, Match> = {
  link: (m) => m.hasLink === true,
  image: (m) => m.hasImage === true,
  attachment: (m) => m.hasAttachment === true,
  reaction: (m) => (m.reactions?.length ?? 0) > 0,
};

/** One narrow condition as a test of a message, evaluated here rather than by the database (see MessageRepository). */
function conditionMatch(c: NarrowCondition): Match {
  switch (c.kind) {
    case "channel":
      return (m) => m.streamId === c.streamId;
    case "channels": {
      const ids = new Set(c.streamIds);
      return (m) => m.streamId !== null && ids.has(m.streamId);
    }
    case "topic":
      return (m) => m.type === "stream" && m.topicKey === c.key;
    case "sender":
      return (m) => m.senderId === c.userId;
    case "receivers": {
      const rows = c.rows ?? [];
      return (m) =>
        receivedWith(m, c.userId, m.streamId === null ? undefined : c.channels.get(m.streamId)) ||
        sortedIncludes(rows, m.messageId);
    }
    case "conversation":
      return (m) => m.type === "private" && m.recipientId === c.recipientId;
    case "dm-including":
      // a group conversation has three participants or more (Zulip's DirectMessageGroup)
      return (m) =>
        m.type === "private" &&
        c.userIds.every((id) => m.receivers.includes(id)) &&
        (!c.groupOnly || m.receivers.length > 2);
    case "direct":
      return (m) => m.type === "private";
    case "id":
      return (m) => m.messageId === c.id;
    case "ids":
      // A binary search of the ascending ids (a user's unread or flagged ids): a Set of thousands
      // of unread ids, built for each read of a window, was a visible share of messaging's CPU under
      // is:unread load (docs/adr/0031-hot-path-views.md), and so were checking and sorting them again
      // at every walk of one request.
      return (m) => sortedIncludes(c.in, m.messageId);
    case "search":
      // the search engine chose the messages (MessageRepository.walk): narrowMatch leaves search terms out
      return () => true;
    case "resolved":
      return (m) => m.type === "stream" && m.topic.startsWith(RESOLVED_TOPIC_PREFIX);
    case "has":
      return HAS[c.feature];
    case "topics":
      return inTopics(new Set(c.topics.map(topicKeyOf)));
    case "muted": {
      const channels = new Set(c.channels);
      const topics = inTopics(new Set(c.topics.map(topicKeyOf)));
      const exempt = inTopics(new Set(c.exempt.map(topicKeyOf)));
      return (m) => topics(m) || (m.streamId !== null && channels.has(m.streamId) && !exempt(m));
    }
    case "nothing":
      return () => false;
    case "not": {
      const term = conditionMatch(c.term);
      return (m) => !term(m);
    }
  }
}

/** Whether a message satisfies every condition of a narrow but its searches, which the search engine answers. */
export function narrowMatch(narrow: NarrowCondition[]): Match {
  const tests = narrow.filter((c) => !isSearchTerm(c)).map(conditionMatch);
  return (m) => tests.every((t) => t(m));
}

/**
 * Where a narrow's messages are read from: the search engine (a narrow with a
 * search), the ids it names, nothing at all,
 * an index's equality fields (the schema's compound indexes end in messageId, so
 * each read is one range of ids on one index), or several of those merged (the
 * topics of is:followed, the channels and topics of is:muted).
 */
export type NarrowSource =
  { search: true } | { ids: readonly number[] } | { none: true } | { index: Filter } | { union: Filter[] };

/**
 * A union of at most this many indexes is read index by index; a user's
 * longer list of followed or muted topics is tested in memory instead, over
 * the narrow's other index.
 */
const MAX_UNION = 16;

/** The indexes holding every message of these channels and topics, within `channel` when the narrow names one. */
function unionSource(channels: number[], topics: TopicRef[], channel: number | undefined): NarrowSource | null {
  const indexes: Filter[] = [
    ...channels.filter((id) => channel === undefined || id === channel).map((streamId) => ({ streamId })),
    ...topics
      .filter((t) => channel === undefined || t.streamId === channel)
      .filter((t) => !channels.includes(t.streamId))
      .map((t) => ({ streamId: t.streamId, topicKey: t.key })),
  ];
  if (indexes.length > MAX_UNION) return null;
  return indexes.length ? { union: indexes } : { none: true };
}

/** The most selective index a narrow's positive conditions allow; the rest are tested in memory. */
export function narrowSource(
  narrow: NarrowCondition[],
  engineSelects: (c: NarrowCondition) => boolean = () => false,
): NarrowSource {
  const of = <K extends NarrowCondition["kind"]>(kind: K) =>
    narrow.find((c): c is Extract<NarrowCondition, { kind: K }> => c.kind === kind);
  if (narrow.some((c) => isSearchTerm(c) || engineSelects(c))) return { search: true };
  const id = of("id");
  if (id) return { ids: [id.id] };
  const ids = of("ids");
  if (ids) return { ids: ids.in };
  if (of("nothing")) return { none: true };
  const conversation = of("conversation");
  if (conversation) return { index: { recipientId: conversation.recipientId } };
  const channel = of("channel");
  const topic = of("topic");
  if (channel && topic) return { index: { streamId: channel.streamId, topicKey: topic.key } };
  const followed = of("topics");
  const muted = of("muted");
  const union =
    (followed && unionSource([], followed.topics, channel?.streamId)) ??
    (muted && unionSource(muted.channels, muted.topics, channel?.streamId));
  if (union) return union;
  if (channel) return { index: { streamId: channel.streamId } };
  const sender = of("sender");
  if (sender) return { index: { senderId: sender.userId } };
  const receivers = of("receivers");
  // direct messages always store their receivers
  if (receivers && (of("direct") || of("dm-including"))) return { index: { receivers: receivers.userId } };
  if (receivers) return receivedSource(receivers.userId, receivers.channels);
  return { index: {} };
}

/**
 * The indexes holding what a user received: their stored receipts, and each
 * channel they were subscribed to (its messages received by subscription);
 * beyond MAX_UNION channels, the organization's messages tested in memory.
 */
function receivedSource(userId: number, channels: ReceivedRanges): NarrowSource {
  const subscribed = [...channels].filter(([, intervals]) => intervals.length > 0).map(([streamId]) => ({ streamId }));
  if (subscribed.length + 1 > MAX_UNION) return { index: {} };
  return { union: [{ receivers: userId }, ...subscribed] };
}
