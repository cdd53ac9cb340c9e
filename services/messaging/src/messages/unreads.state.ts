import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import { topicVisibilityOf } from "../user-topics/topic-visibility";
import { topicForClient } from "./message-view";

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
    const pms: Array<{ other_user_id: number; sender_id: number; unread_message_ids: number[] }> = [];
    const streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }> = [];
    const huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }> = [];
    const emptyTopicName = Boolean(p.client_capabilities.empty_topic_name);
    /** the muted conversations' unread ids */
    const muted = new Set<number>();
    let count = 0;
    // one entry per conversation (a topic's messages are one group whatever the spelling of each)
    for (const { place, ids } of unread.conversations()) {
      const unread_message_ids = [...ids];
      if (place.streamId !== null) {
        const topic = topicForClient(place.topic, emptyTopicName, settings);
        streams.push({ stream_id: place.streamId, topic, unread_message_ids });
        if (visibility.isMuted(place.streamId, place.topic)) {
          for (const id of ids) muted.add(id);
          continue;
        }
      } else if (place.participants.length <= 2) {
        const other = place.participants.find((id) => id !== me) ?? me;
        pms.push({ other_user_id: other, sender_id: other, unread_message_ids });
      } else {
        huddles.push({ user_ids_string: place.participants.join(","), unread_message_ids });
      }
      count += ids.length;
    }
    const mentions = unread.mentions().filter((id) => !muted.has(id) || unread.isDirectlyMentioned(id));
    return {
      unread_msgs: {
        pms,
        streams,
        huddles,
        mentions,
        count,
        old_unreads_missing: unread.olderMissing,
      },
    };
  }),
];
