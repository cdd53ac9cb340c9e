import { messaging, requireUser, type Handler } from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import { channelView } from "../channels/channel-view";
import type { Messaging } from "../context";

/** GET /streams/{stream_id} */
export const getStreamHandler =
  (m: Messaging): Handler<typeof messaging.getStreamById> =>
  async ({ stream_id }, ctx) => {
    const { actor } = requireUser(ctx);
    const { channel } = await accessChannelById(m, actor, stream_id);
    return { stream: channelView(channel) };
  };
