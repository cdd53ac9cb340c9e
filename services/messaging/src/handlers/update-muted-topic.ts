import {
  badRequest,
  messaging,
  requireUser,
  type Handler,
  type EventPublisher,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { accessChannelForUserTopic } from "../user-topics/topic-channel-access";
import { setVisibilityPolicy, userTopicName } from "../user-topics/set-visibility-policy";

/**
 * PATCH /users/me/subscriptions/muted_topics (Zulip's update_muted_topic,
 * deprecated for POST /user_topics): `add` mutes the topic, `remove` removes
 * whatever policy it has. The channel by exactly one of stream_id and stream
 * (check_for_exactly_one_stream_arg).
 */
export const updateMutedTopicHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userTopics: UserTopicIndex;
    events: EventPublisher<"messaging">;
    settings: RealmSettingsSource;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.updateMutedTopic> =>
  async ({ stream_id, stream, topic, op }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (stream_id === undefined && stream === undefined) throw badRequest("Missing 'stream_id' argument");
    if (stream_id !== undefined && stream !== undefined) {
      throw badRequest("Unsupported parameter combination: stream_id, stream", { parameters: "stream_id, stream" });
    }
    const target = stream !== undefined ? { name: stream } : { streamId: stream_id! };
    const removing = op === "remove" ? { error: "Topic is not muted" } : null;
    const channel = await accessChannelForUserTopic(deps, realm.id, actor, target, removing, ctx);
    const { MUTED, INHERIT } = messaging.VISIBILITY_POLICY;
    const name = userTopicName(topic, await deps.settings.get(ctx));
    await setVisibilityPolicy(deps, ctx, realm.id, actor.userId, channel, name, op === "add" ? MUTED : INHERIT);
    return {};
  };
