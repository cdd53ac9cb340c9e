import { messaging, requireUser, type Handler } from "@teamchat/shared";
import { accessChannelById, canReadHistory } from "../channels/channel-access";
import { realmSettings, type Messaging } from "../context";

/** GET /users/me/{stream_id}/topics (E15): the channel's topics the user may see, most recent first. */
export const getStreamTopicsHandler =
  (m: Messaging): Handler<typeof messaging.getStreamTopics> =>
  async ({ stream_id, allow_empty_topic_name }, ctx) => {
    const { actor } = requireUser(ctx);
    const { channel, subscribed } = await accessChannelById(m, actor, stream_id, "content");
    const settings = await realmSettings(m, ctx);
    // Protected history: only the topics of messages the user received.
    const receivedBy = canReadHistory(actor, channel, subscribed) ? undefined : actor.userId;
    const topics = await m.messages.topics(actor.realmId, stream_id, receivedBy);
    return {
      topics: topics.map((t) => ({
        name: t.name === "" && !allow_empty_topic_name ? settings.realm_empty_topic_display_name : t.name,
        max_id: t.max_id,
      })),
    };
  };
