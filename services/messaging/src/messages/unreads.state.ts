import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import { topicVisibilityOf } from "../user-topics/topic-visibility";
import { topicForClient } from "./message-view";

type Grouped<K> = Map<string, K & { unread_message_ids: number[] }>;
const addTo = <K>(map: Grouped<K>, key: string, init: K, id: number) =>
  (map.get(key) ?? map.set(key, { ...init, unread_message_ids: [] }).get(key)!).unread_message_ids.push(id);

type TopicUnreads = { stream_id: number; topic: string; unread_message_ids: number[] };

/**
 * register's unread_msgs: unread message ids grouped by conversation, and the
 * unread mentions. As Zulip's aggregate_unread_data: every unread channel
 * message is listed, but `count` leaves out those muted for the user (muted
 * topics, muted channels but for their unmuted or followed topics), and so do
 * `mentions` for wildcard mentions (personal mentions always count).
 */
export const unreadsState = (deps: {
  personal: PersonalIndex;
  settings: RealmSettingsSource;
  userTopics: UserTopicIndex;
  subscriptions: SubscriptionDirectory;
}): StateProvider[] => [
  provideState(messaging.unreadMsgsState, async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const me = actor.userId;
    const [settings, personal, visibility] = await Promise.all([
      deps.settings.get(ctx),
      deps.personal.of(realm.id, me),
      topicVisibilityOf(deps, realm.id, me),
    ]);
    const { direct, topics, olderMissing } = personal.unreadGroups();
    const emptyTopicName = Boolean(p.client_capabilities.empty_topic_name);
    const streams: TopicUnreads[] = [];
    const pms: Grouped<{ other_user_id: number; sender_id: number }> = new Map();
    const huddles: Grouped<{ user_ids_string: string }> = new Map();
    const mentions: number[] = [];
    let count = 0;
    for (const t of topics) {
      // Zulip's get_raw_unread_data: only the channels the user is subscribed to (a left channel's unread
      // messages, which converted data may hold, are still is:unread)
      if (!personal.subscribedTo(t.streamId)) continue;
      const muted = visibility.isMuted(t.streamId, t.topic);
      streams.push({
        stream_id: t.streamId,
        topic: topicForClient(t.topic, emptyTopicName, settings),
        unread_message_ids: t.ids,
      });
      if (!muted) count += t.ids.length;
      for (const id of t.mentioned) if (!muted || personal.storedOf(id).includes("mentioned")) mentions.push(id);
    }
    for (const msg of direct) {
      if (msg.participants.length <= 2) {
        const other = msg.participants.find((id) => id !== me) ?? me;
        addTo(pms, String(other), { other_user_id: other, sender_id: other }, msg.id);
      } else {
        const key = msg.participants.join(",");
        addTo(huddles, key, { user_ids_string: key }, msg.id);
      }
      count++;
      if (msg.mentioned) mentions.push(msg.id);
    }
    return {
      unread_msgs: {
        pms: [...pms.values()],
        streams,
        huddles: [...huddles.values()],
        mentions: mentions.sort((a, b) => a - b),
        count,
        old_unreads_missing: olderMissing,
      },
    };
  }),
];
