import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";

/** Zulip's MAX_UNREAD_MESSAGES: beyond it, old_unreads_missing. */
const MAX_UNREAD_MESSAGES = 50000;

type Grouped<K> = Map<string, K & { unread_message_ids: number[] }>;
const addTo = <K>(map: Grouped<K>, key: string, init: K, id: number) =>
  (map.get(key) ?? map.set(key, { ...init, unread_message_ids: [] }).get(key)!).unread_message_ids.push(id);

/** register's unread_msgs: unread message ids grouped by conversation, and the unread mentions. */
export const unreadsState = (deps: Deps<"messages" | "userMessages" | "settings">): StateProvider[] => [
  provideState(messaging.unreadMsgsState, async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const me = actor.userId;
    const { realm_empty_topic_display_name: emptyTopicName } = await deps.settings.get(ctx);
    const unreadIds = (await deps.userMessages.idsWithFlag(realm.id, me, "read", false)).sort((a, b) => a - b);
    const ids = unreadIds.slice(-MAX_UNREAD_MESSAGES);
    const messages = ids.length ? await deps.messages.byIds(realm.id, [], ids) : [];
    const unread = new Set(ids);
    const mentioned = new Set(
      [
        ...(await deps.userMessages.idsWithFlag(realm.id, me, "mentioned")),
        ...(await deps.userMessages.idsWithFlag(realm.id, me, "wildcard_mentioned")),
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
      unread_msgs: {
        pms: [...pms.values()],
        streams: [...streams.values()],
        huddles: [...huddles.values()],
        mentions: [...mentioned].sort((a, b) => a - b),
        count: ids.length,
        old_unreads_missing: unreadIds.length > MAX_UNREAD_MESSAGES,
      },
    };
  }),
];
