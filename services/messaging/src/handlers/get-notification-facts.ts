import { messaging, requireRealm, type Handler } from "@teamchat/shared";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserTopicIndex } from "../user-topics/user-topic-index";

/** Internal: each user's muting of the sender and, for a channel message, subscription settings and topic policy. */
export const getNotificationFactsHandler =
  ({
    mutedUsers,
    subscriptions,
    userTopics,
  }: {
    mutedUsers: MutedUserIndex;
    subscriptions: SubscriptionDirectory;
    userTopics: UserTopicIndex;
  }): Handler<typeof messaging.getNotificationFacts> =>
  async ({ sender_id, stream_id, topic, user_ids }, ctx) => {
    const realm = requireRealm(ctx);
    const muters = await mutedUsers.mutersOf(realm.id, sender_id);
    // each user's subscriptions and topics from the instance's memory, as a send reads them
    const users = await Promise.all(
      user_ids.map(async (userId) => {
        const sub =
          stream_id === undefined
            ? undefined
            : (await subscriptions.ofUser(realm.id, userId)).find((s) => s.streamId === stream_id && s.active);
        const policy =
          stream_id === undefined ? 0 : (await userTopics.of(realm.id, userId)).policyOf(stream_id, topic ?? "");
        return {
          user_id: userId,
          sender_muted: muters.has(userId),
          channel_muted: sub?.isMuted ?? false,
          visibility_policy: policy,
          email_notifications: sub?.emailNotifications ?? null,
          push_notifications: sub?.pushNotifications ?? null,
          wildcard_mentions_notify: sub?.wildcardMentionsNotify ?? null,
        };
      }),
    );
    return { users };
  };
