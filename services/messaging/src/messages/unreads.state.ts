import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";
import { topicVisibilityOf } from "../user-topics/topic-visibility";
import { topicForClient } from "./message-view";

type Grouped<K> = Map<string, K & { unread_message_ids: number[] }>;
const addTo = <K>(map: Grouped<K>, key: string, init: K, id: number) =>
  (map.get(key) ?? map.set(key, { ...init, unread_message_ids: [] }).get(key)!).unread_message_ids.push(id);

/**
 * register's unread_msgs: unread message ids grouped by conversation, and the
 * unread mentions. As Zulip's aggregate_unread_data: every unread channel
 * message is listed, but `count` leaves out those muted for the user (muted
 * topics, muted channels but for their unmuted or followed topics), and so do
 * `mentions` for wildcard mentions (personal mentions always count).
 */
export const unreadsState = (deps: Deps<"personal" | "settings" | "userTopics" | "subscriptions">): StateProvider[] => [
  provideState(messaging.unreadMsgsState, async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const me = actor.userId;
    const [settings, personal, visibility] = await Promise.all([
      deps.settings.get(ctx),
      deps.personal.of(realm.id, me),
      topicVisibilityOf(deps, realm.id, me),
    ]);
    const { unread } = personal;
    const pms: Grouped<{ other_user_id: number; sender_id: number }> = new Map();
    const streams: Grouped<{ stream_id: number; topic: string }> = new Map();
    const huddles: Grouped<{ user_ids_string: string }> = new Map();
    const mentions: number[] = [];
    let count = 0;
    for (const msg of unread.messages()) {
      const muted = msg.streamId !== null && visibility.isMuted(msg.streamId, msg.topic);
      if (!muted) count++;
      if (msg.mentioned && (!muted || personal.storedOf(msg.id).includes("mentioned"))) mentions.push(msg.id);
      if (msg.streamId !== null) {
        const topic = topicForClient(msg.topic, Boolean(p.client_capabilities.empty_topic_name), settings);
        addTo(streams, `${msg.streamId}:${msg.topicKey}`, { stream_id: msg.streamId, topic }, msg.id);
      } else if (msg.participants.length <= 2) {
        const other = msg.participants.find((id) => id !== me) ?? me;
        addTo(pms, String(other), { other_user_id: other, sender_id: other }, msg.id);
      } else {
        const key = msg.participants.join(",");
        addTo(huddles, key, { user_ids_string: key }, msg.id);
      }
    }
    return {
      unread_msgs: {
        pms: [...pms.values()],
        streams: [...streams.values()],
        huddles: [...huddles.values()],
        mentions,
        count,
        old_unreads_missing: unread.olderMissing,
      },
    };
  }),
];
