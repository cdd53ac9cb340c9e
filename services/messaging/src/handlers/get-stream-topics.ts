import { messaging, requireUser, type Handler, type UserGroupMemberships } from "@teamchat/shared";
import { accessChannelById, canReadHistory } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { MessageRepository } from "../messages/message.repository";
import type { TopicRepository } from "../topics/topic.repository";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { topicForClient } from "../messages/message-view";
import type { ReadStateRepository } from "../user-messages/read-state.repository";

/** GET /users/me/{stream_id}/topics (Zulip's get_topics_backend): the channel's topics the user may see, most recent first. */
export const getStreamTopicsHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    messages: MessageRepository;
    topics: TopicRepository;
    readStates: ReadStateRepository;
    settings: RealmSettingsSource;
  }): Handler<typeof messaging.getStreamTopics> =>
  async ({ stream_id, allow_empty_topic_name }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const { channel, subscribed } = await accessChannelById(deps, realm.id, actor, stream_id, ctx, "content");
    const settings = await deps.settings.get(ctx);
    // Protected history: only the topics of messages the user received.
    const topics = canReadHistory(actor, channel, subscribed, await deps.userGroups.get(ctx))
      ? await deps.topics.ofChannel(realm.id, stream_id)
      : await deps.messages.topicsReceivedBy(
          realm.id,
          stream_id,
          actor.userId,
          (await deps.readStates.of(realm.id, actor.userId, stream_id)).state.intervals,
        );
    return {
      topics: topics.map((t) => ({
        name: topicForClient(t.name, allow_empty_topic_name, settings),
        max_id: t.max_id,
      })),
    };
  };
