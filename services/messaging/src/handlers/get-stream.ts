import { messaging, requireUser, type Handler } from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import { channelView } from "../channels/channel-view";
import type { Deps } from "../deps";

/** GET /streams/{stream_id} */
export const getStreamHandler =
  (deps: Deps<"channels" | "subscriptions" | "userGroups">): Handler<typeof messaging.getStreamById> =>
  async ({ stream_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const { channel } = await accessChannelById(deps, realm.id, actor, stream_id, ctx);
    return { stream: channelView(channel) };
  };
