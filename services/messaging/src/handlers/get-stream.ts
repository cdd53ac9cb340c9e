import { messaging, requireUser, type Handler, type UserGroupMemberships } from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import { channelView } from "../channels/channel-view";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";

/** GET /streams/{stream_id} */
export const getStreamHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.getStreamById> =>
  async ({ stream_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const { channel } = await accessChannelById(deps, realm.id, actor, stream_id, ctx);
    return { stream: channelView(channel) };
  };
