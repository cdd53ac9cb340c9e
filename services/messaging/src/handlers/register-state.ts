import { registerState, requireUser, wants, type Handler } from "@teamchat/shared";
import { channelView } from "../channels/channel-view";
import { canReadContent } from "../channels/channel-access";
import type { MessagingDeps } from "../deps";
import type { MessageDoc } from "../messages/message.schema";
import { subscriptionObjects } from "../subscriptions/subscription-objects";

/** Zulip's MAX_UNREAD_MESSAGES: beyond it, old_unreads_missing. */
const MAX_UNREAD_MESSAGES = 50000;
/** Zulip looks at this many recent direct messages for recent_private_conversations. */
const RECENT_DIRECT_MESSAGES = 1000;

type Grouped<K> = Map<string, K & { unread_message_ids: number[] }>;
const addTo = <K>(map: Grouped<K>, key: string, init: K, id: number) =>
  (map.get(key) ?? map.set(key, { ...init, unread_message_ids: [] }).get(key)!).unread_message_ids.push(id);

/**
 * messaging's part of POST /register (Zulip's fetch_initial_state_data): channels and
 * subscriptions, message ids, unread counts, starred messages, direct conversations.
 */
export const registerStateHandler =
  (m: MessagingDeps): Handler<ReturnType<typeof registerState>> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const realmId = realm.id;
    const me = actor.userId;
    const state: Record<string, unknown> = {};

    if (wants(p, "message")) state.max_message_id = await m.messages.latestReceivedId(realmId, me);
    if (wants(p, "subscription")) {
      Object.assign(state, await subscriptionObjects(m, realmId, actor, p.include_subscribers !== false));
    }
    if (wants(p, "stream")) {
      const subscribed = await m.subscriptions.subscribedStreamIds(realmId, me);
      state.streams = (await m.channels.all(realmId))
        .filter((ch) => !ch.isArchived && canReadContent(actor, ch, subscribed.has(ch.streamId)))
        .sort((a, b) => a.name.localeCompare(b.name))
        .map(channelView);
    }
    if (wants(p, "default_streams")) {
      state.realm_default_streams = await m.channels.defaultIds(realmId);
    }
    if (wants(p, "default_stream_groups")) state.realm_default_stream_groups = [];
    if (wants(p, "starred_messages")) {
      state.starred_messages = (await m.userMessages.idsWithFlag(realmId, me, "starred")).sort((a, b) => a - b);
    }
    if (wants(p, "muted_topics")) state.muted_topics = [];
    if (wants(p, "user_topic")) state.user_topics = [];
    if (wants(p, "recent_private_conversations")) {
      const recent = await m.messages.recentDirect(realmId, me, RECENT_DIRECT_MESSAGES);
      const byConversation = new Map<number, { max_message_id: number; user_ids: number[] }>();
      for (const msg of recent) {
        if (byConversation.has(msg.recipientId)) continue;
        byConversation.set(msg.recipientId, {
          max_message_id: msg.messageId,
          user_ids: msg.receivers.filter((id) => id !== me),
        });
      }
      state.recent_private_conversations = [...byConversation.values()];
    }
    if (wants(p, "message") && wants(p, "update_message_flags")) {
      const settings = await m.settings.get(ctx);
      state.unread_msgs = await unreadMessages(m, realmId, me, settings.realm_empty_topic_display_name, p);
    }
    return state;
  };

/** Zulip's unread_msgs: unread message ids grouped by conversation, and the unread mentions. */
async function unreadMessages(
  m: MessagingDeps,
  realmId: number,
  me: number,
  emptyTopicName: string,
  p: { client_capabilities: Record<string, unknown> },
) {
  const unreadIds = (await m.userMessages.idsWithFlag(realmId, me, "read", false)).sort((a, b) => a - b);
  const ids = unreadIds.slice(-MAX_UNREAD_MESSAGES);
  const messages: MessageDoc[] = ids.length ? await m.messages.byIds(realmId, [], ids) : [];
  const unread = new Set(ids);
  const mentioned = new Set(
    [
      ...(await m.userMessages.idsWithFlag(realmId, me, "mentioned")),
      ...(await m.userMessages.idsWithFlag(realmId, me, "wildcard_mentioned")),
    ].filter((id) => unread.has(id)),
  );
  const pms: Grouped<{ other_user_id: number; sender_id: number }> = new Map();
  const streams: Grouped<{ stream_id: number; topic: string }> = new Map();
  const huddles: Grouped<{ user_ids_string: string }> = new Map();
  for (const msg of messages) {
    if (msg.type === "stream") {
      const topic = msg.topic === "" && !p.client_capabilities.empty_topic_name ? emptyTopicName : msg.topic;
      addTo(streams, `${msg.streamId}:${msg.topicKey}`, { stream_id: msg.streamId!, topic }, msg.messageId);
    } else if (msg.receivers.length <= 2) {
      const other = msg.receivers.find((id) => id !== me) ?? me;
      addTo(pms, String(other), { other_user_id: other, sender_id: other }, msg.messageId);
    } else {
      const key = msg.receivers.join(",");
      addTo(huddles, key, { user_ids_string: key }, msg.messageId);
    }
  }
  return {
    pms: [...pms.values()],
    streams: [...streams.values()],
    huddles: [...huddles.values()],
    mentions: [...mentioned].sort((a, b) => a - b),
    count: ids.length,
    old_unreads_missing: unreadIds.length > MAX_UNREAD_MESSAGES,
  };
}
