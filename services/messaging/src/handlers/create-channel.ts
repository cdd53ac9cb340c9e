import { ZulipError, badRequest, messaging, requireUser, type Handler } from "@teamchat/shared";
import { checkChannelName, checkChannelOptions, insertChannel } from "../channels/create-channels";
import type { Messaging } from "../context";
import { subscribeUsers } from "../subscriptions/subscribe-users";

const channelExists = (name: string) =>
  new ZulipError("CHANNEL_ALREADY_EXISTS", `Channel '${name}' already exists`, 400, { channel_name: name });

/** POST /channels/create (E2): a new channel with the given subscribers; its id. */
export const createChannelHandler =
  (m: Messaging): Handler<typeof messaging.createChannel> =>
  async (p, ctx) => {
    const { actor } = requireUser(ctx);
    const settings = await checkChannelOptions(m, ctx, actor, p);
    const name = checkChannelName(p.name, settings);
    const subscriberIds = [...new Set(p.subscribers)];
    const users = await m.users.byIds(ctx, actor.realmId, subscriberIds);
    const invalid = subscriberIds.find((id) => !users.get(id)?.is_active);
    if (invalid !== undefined) throw badRequest(`Invalid user ID: ${invalid}`);
    if (await m.channels.byName(actor.realmId, name)) throw channelExists(name);
    const channel = await insertChannel(m, actor, settings, { name, description: p.description }, p);
    if (!channel) throw channelExists(name);
    await subscribeUsers(m, ctx, actor, [channel], subscriberIds, [channel]);
    return { id: channel.streamId };
  };
