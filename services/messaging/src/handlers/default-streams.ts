import { badRequest, isAdmin, messaging, requireUser, type Handler } from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import { publishDefaultStreams } from "../channels/channel-events";
import type { Deps } from "../deps";
import { subscribeUsers } from "../subscriptions/subscribe-users";
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

/**
 * Internal, asked by identity right after it creates a user: the new user
 * joins the organization's default channels (Zulip's do_create_user). Which
 * channels those are is messaging's to decide, so identity asks rather than
 * subscribing; it asks on the creating request (not on its realm_user event)
 * so that the user's subscriptions exist when the creation is answered.
 * Repeating it subscribes nobody twice.
 */
export const subscribeToDefaultStreamsHandler =
  (
    deps: Deps<"channels" | "subscriptions" | "users" | "events" | "userGroups">,
  ): Handler<typeof messaging.subscribeToDefaultStreams> =>
  async ({ user_id }, ctx) => {
    const { realm } = requireUser(ctx);
    const user = (await deps.users.byIds(ctx, realm.id, [user_id])).get(user_id);
    if (!user?.is_active) throw badRequest(`Invalid user ID: ${user_id}`);
    const defaults = (await deps.channels.all(realm.id)).filter((ch) => ch.isDefault && !ch.isArchived);
    if (defaults.length) await subscribeUsers(deps, ctx, realm.id, defaults, [user_id]);
    return {};
  };
