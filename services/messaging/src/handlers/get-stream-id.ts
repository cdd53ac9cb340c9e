import { messaging, requireUser, type Handler, type UserGroupMemberships } from "@teamchat/shared";
import { accessChannelByName } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";

/** GET /get_stream_id (Zulip's json_get_stream_id): the id of a channel the user may read. */
export const getStreamIdHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.getStreamId> =>
  async ({ stream }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { stream_id: (await accessChannelByName(deps, realm.id, actor, stream, ctx)).streamId };
  };
