import {
  messaging,
  messagingEvents,
  type HandlerContext,
  type realmConfig,
  type EventPublisher,
} from "@teamchat/shared";
import type { ChannelDoc } from "../channels/channel.schema";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { UserTopic, UserTopicIndex } from "./user-topic-index";

/** The empty-topic display name means "" (Zulip's maybe_rename_general_chat_to_empty_topic). */
export const userTopicName = (
  topic: string,
  settings: Pick<realmConfig.RealmSettings, "realm_empty_topic_display_name">,
) => (topic === settings.realm_empty_topic_display_name ? "" : topic);

/**
 * Zulip's do_set_user_topic_visibility_policy for one user: sets (or, with
 * 0, removes) the user's policy for the topic. A request that changes nothing
 * (the policy already set, or none to remove) succeeds without events, as
 * since FL 169. Otherwise the user's queues get the deprecated muted_topics
 * event (every muted topic) and then user_topic.
 */
export async function setVisibilityPolicy(
  deps: { userTopics: UserTopicIndex; channels: ChannelDirectory; events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
  channel: ChannelDoc,
  topic: string,
  visibilityPolicy: messaging.VisibilityPolicy,
): Promise<void> {
  const lastUpdated = Math.floor(Date.now() / 1000);
  const changed =
    visibilityPolicy === messaging.VISIBILITY_POLICY.INHERIT
      ? await deps.userTopics.remove(realmId, userId, channel.streamId, topic)
      : await deps.userTopics.set(realmId, userId, channel.streamId, topic, visibilityPolicy, lastUpdated);
  if (!changed) {
    ctx.log.info({ userId, streamId: channel.streamId, visibilityPolicy }, "visibility policy unchanged");
    return;
  }
  const userIds = [userId];
  deps.events.publish(
    messagingEvents.mutedTopicsChanged,
    { realmId, userIds, event: { type: "muted_topics", muted_topics: await mutedTopics(deps, realmId, userId) } },
    ctx.requestId,
  );
  deps.events.publish(
    messagingEvents.userTopicChanged,
    {
      realmId,
      userIds,
      event: {
        type: "user_topic",
        stream_id: channel.streamId,
        topic_name: topic,
        last_updated: lastUpdated,
        visibility_policy: visibilityPolicy,
      },
    },
    ctx.requestId,
  );
}

/**
 * Zulip's get_topic_mutes: [channel name, topic, muted at] for the user's
 * muted topics of channels not archived. Read from the database: this
 * instance's copy hears the change only with the event about to be sent.
 */
export async function mutedTopics(
  deps: { userTopics: UserTopicIndex; channels: ChannelDirectory },
  realmId: number,
  userId: number,
): Promise<Array<[string, string, number]>> {
  return mutedTopicList(deps, realmId, await deps.userTopics.stored(realmId, userId));
}

/** The legacy muted_topics entries of these topics: the muted ones, of channels not archived. */
export async function mutedTopicList(
  deps: { channels: ChannelDirectory },
  realmId: number,
  topics: UserTopic[],
): Promise<Array<[string, string, number]>> {
  const channels = new Map((await deps.channels.all(realmId)).map((c) => [c.streamId, c]));
  return topics.flatMap((t) => {
    const channel = channels.get(t.streamId);
    if (t.visibilityPolicy !== messaging.VISIBILITY_POLICY.MUTED || !channel || channel.isArchived) return [];
    return [[channel.name, t.topicName, t.lastUpdated] as [string, string, number]];
  });
}
