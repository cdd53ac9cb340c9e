import {
  ZulipError,
  badRequest,
  messaging,
  requireUser,
  type Handler,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { checkChannelName, checkChannelOptions, insertChannel } from "../channels/create-channels";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { InternalStreamSendDeps } from "../messages/internal-send";
import { subscribeUsers } from "../subscriptions/subscribe-users";
import { sendMessagesForNewSubscribers } from "../subscriptions/subscription-notices";

const channelExists = (name: string) =>
  new ZulipError("CHANNEL_ALREADY_EXISTS", `Channel '${name}' already exists`, 400, { channel_name: name });

/** POST /channels/create (Zulip's create_channel): a new channel with the given subscribers; its id. */
export const createChannelHandler =
  (
    deps: InternalStreamSendDeps & { channels: ChannelDirectory; userGroups: UserGroupMemberships },
  ): Handler<typeof messaging.createChannel> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const settings = await checkChannelOptions(deps, ctx, actor, p);
    const name = checkChannelName(p.name, settings);
    const subscriberIds = [...new Set(p.subscribers)];
    const users = await deps.users.byIds(ctx, realm.id, subscriberIds);
    const invalid = subscriberIds.find((id) => !users.get(id)?.is_active);
    if (invalid !== undefined) throw badRequest(`Invalid user ID: ${invalid}`);
    if (await deps.channels.byName(realm.id, name)) throw channelExists(name);
    const channel = await insertChannel(deps, realm.id, actor, settings, { name, description: p.description }, p);
    if (!channel) throw channelExists(name);
    const { added } = await subscribeUsers(deps, ctx, realm.id, [channel], subscriberIds, [channel]);
    // no "subscribed you" messages for a channel being created (Zulip removed the option here, FL 397)
    await sendMessagesForNewSubscribers(deps, ctx, added, [channel], {
      announce: p.announce,
      sendNewSubscriptionMessages: false,
    });
    return { id: channel.streamId };
  };
