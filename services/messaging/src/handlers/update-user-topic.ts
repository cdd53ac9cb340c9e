import { messaging, requireUser, type Handler, type EventPublisher, type UserGroupMemberships } from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { accessChannelForUserTopic } from "../user-topics/topic-channel-access";
import { setVisibilityPolicy, userTopicName } from "../user-topics/set-visibility-policy";

/** POST /user_topics (Zulip's update_user_topic): the caller's visibility policy for a channel's topic. */
export const updateUserTopicHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userTopics: UserTopicIndex;
    events: EventPublisher<"messaging">;
    settings: RealmSettingsSource;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.updateUserTopic> =>
  async ({ stream_id, topic, visibility_policy }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const removing = visibility_policy === messaging.VISIBILITY_POLICY.INHERIT ? { error: "Invalid channel ID" } : null;
    const channel = await accessChannelForUserTopic(deps, realm.id, actor, { streamId: stream_id }, removing, ctx);
    const name = userTopicName(topic, await deps.settings.get(ctx));
    await setVisibilityPolicy(deps, ctx, realm.id, actor.userId, channel, name, visibility_policy);
    return {};
  };
