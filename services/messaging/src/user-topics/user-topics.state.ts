import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { UserTopicIndex } from "./user-topic-index";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { topicForClient } from "../messages/message-view";
import { mutedTopicList } from "./set-visibility-policy";

/** register's user_topics and the deprecated muted_topics, from the user's topics in memory (channels not archived). */
export const userTopicsState = (deps: {
  userTopics: UserTopicIndex;
  channels: ChannelDirectory;
  settings: RealmSettingsSource;
}): StateProvider[] => [
  provideState(messaging.mutedTopicsState, async (p, ctx) => {
    // Zulip sends muted_topics only to clients that did not ask for user_topic too
    if (p.fetch_event_types?.includes("user_topic")) return {};
    const { realm, actor } = requireUser(ctx);
    const topics = await deps.userTopics.of(realm.id, actor.userId);
    return { muted_topics: await mutedTopicList(deps, realm.id, topics.all()) };
  }),
  provideState(messaging.userTopicsState, async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [topics, channels, settings] = await Promise.all([
      deps.userTopics.of(realm.id, actor.userId),
      deps.channels.all(realm.id),
      deps.settings.get(ctx),
    ]);
    const archived = new Set(channels.filter((c) => c.isArchived).map((c) => c.streamId));
    const allowEmptyTopicName = Boolean(p.client_capabilities.empty_topic_name);
    return {
      user_topics: topics
        .all()
        .filter((t) => !archived.has(t.streamId))
        .map((t) => ({
          stream_id: t.streamId,
          topic_name: topicForClient(t.topicName, allowEmptyTopicName, settings),
          last_updated: t.lastUpdated,
          visibility_policy: t.visibilityPolicy,
        })),
    };
  }),
];
