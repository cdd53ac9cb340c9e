import { messaging, requireUser, type Handler } from "@teamchat/shared";
import type { Deps } from "../deps";
import { accessChannelForUserTopic } from "../user-topics/topic-channel-access";
import { setVisibilityPolicy, userTopicName } from "../user-topics/set-visibility-policy";

/** POST /user_topics (Zulip's update_user_topic): the caller's visibility policy for a channel's topic. */
export const updateUserTopicHandler =
  (
    deps: Deps<"channels" | "subscriptions" | "userTopics" | "events" | "settings" | "userGroups">,
  ): Handler<typeof messaging.updateUserTopic> =>
  async ({ stream_id, topic, visibility_policy }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const removing = visibility_policy === messaging.VISIBILITY_POLICY.INHERIT ? { error: "Invalid channel ID" } : null;
    const channel = await accessChannelForUserTopic(deps, realm.id, actor, { streamId: stream_id }, removing, ctx);
    const name = userTopicName(topic, await deps.settings.get(ctx));
    await setVisibilityPolicy(deps, ctx, realm.id, actor.userId, channel, name, visibility_policy);
    return {};
  };
