import { badRequest, isAdmin, messaging, requireUser, type Handler } from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import { publishDefaultStreams } from "../channels/channel-events";
import type { Deps } from "../deps";
import { cannotManageDefaultChannels } from "./update-stream";

/** POST /default_streams (Zulip's add_default_stream): administrators; a channel they may read, never a private one. */
export const addDefaultStreamHandler =
  (
    deps: Deps<"channels" | "subscriptions" | "users" | "events" | "userGroups">,
  ): Handler<typeof messaging.addDefaultStream> =>
  async ({ stream_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw cannotManageDefaultChannels();
    const { channel } = await accessChannelById(deps, realm.id, actor, stream_id, ctx, "content");
    if (channel.inviteOnly) throw badRequest("Private channels cannot be made default.");
    if (channel.isDefault) return {};
    await deps.channels.update(realm.id, stream_id, { isDefault: true });
    await publishDefaultStreams(deps, ctx, realm.id);
    return {};
  };

/** DELETE /default_streams (Zulip's remove_default_stream): administrators; metadata access is enough. */
export const removeDefaultStreamHandler =
  (
    deps: Deps<"channels" | "subscriptions" | "users" | "events" | "userGroups">,
  ): Handler<typeof messaging.removeDefaultStream> =>
  async ({ stream_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw cannotManageDefaultChannels();
    const { channel } = await accessChannelById(deps, realm.id, actor, stream_id, ctx, "metadata");
    if (!channel.isDefault) return {};
    await deps.channels.update(realm.id, stream_id, { isDefault: false });
    await publishDefaultStreams(deps, ctx, realm.id);
    return {};
  };
