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
    const { unread } = personal;
    const pms: Grouped<{ other_user_id: number; sender_id: number }> = new Map();
    // by channel, then topic key: a user's 5,000 unread sit in a few hundred topics at most, so what
    // depends on the topic only (its muting, its spelling for the client) is worked out once per topic
    const topics = new Map<number, Map<string, { unreads: TopicUnreads; muted: boolean }>>();
    const streams: TopicUnreads[] = [];
    const emptyTopicName = Boolean(p.client_capabilities.empty_topic_name);
    const huddles: Grouped<{ user_ids_string: string }> = new Map();
    const mentions: number[] = [];
    let count = 0;
    for (const msg of unread.messages()) {
      let muted = false;
      // Zulip's get_raw_unread_data: only the channels the user is subscribed to (a left channel's unread
      // messages, which converted data may hold, are still is:unread)
      if (msg.streamId !== null && !personal.subscribedTo(msg.streamId)) continue;
      if (msg.streamId !== null) {
        let ofChannel = topics.get(msg.streamId);
        if (!ofChannel) topics.set(msg.streamId, (ofChannel = new Map()));
        let group = ofChannel.get(msg.topicKey);
        if (!group) {
          const topic = topicForClient(msg.topic, emptyTopicName, settings);
          group = {
            unreads: { stream_id: msg.streamId, topic, unread_message_ids: [] },
            muted: visibility.isMuted(msg.streamId, msg.topic),
          };
          ofChannel.set(msg.topicKey, group);
          streams.push(group.unreads);
        }
        group.unreads.unread_message_ids.push(msg.id);
        muted = group.muted;
      } else if (msg.participants.length <= 2) {
        const other = msg.participants.find((id) => id !== me) ?? me;
        addTo(pms, String(other), { other_user_id: other, sender_id: other }, msg.id);
      } else {
        const key = msg.participants.join(",");
        addTo(huddles, key, { user_ids_string: key }, msg.id);
      }
      if (!muted) count++;
      if (msg.mentioned && (!muted || personal.storedOf(msg.id).includes("mentioned"))) mentions.push(msg.id);
    }
    return {
      unread_msgs: {
        pms: [...pms.values()],
        streams,
        huddles: [...huddles.values()],
        mentions,
        count,
        old_unreads_missing: unread.olderMissing,
      },
    };
  }),
];
