import { ZulipError, badRequest, messaging, requireUser, type Handler } from "@teamchat/shared";
import { checkChannelName, checkChannelOptions, insertChannel } from "../channels/create-channels";
import type { Deps } from "../deps";
import { subscribeUsers } from "../subscriptions/subscribe-users";

const channelExists = (name: string) =>
  new ZulipError("CHANNEL_ALREADY_EXISTS", `Channel '${name}' already exists`, 400, { channel_name: name });

/** POST /channels/create (E2): a new channel with the given subscribers; its id. */
export const createChannelHandler =
  (
    deps: Deps<"channels" | "subscriptions" | "users" | "events" | "settings" | "userGroups">,
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
    await subscribeUsers(deps, ctx, realm.id, [channel], subscriberIds, [channel]);
    return { id: channel.streamId };
  };
