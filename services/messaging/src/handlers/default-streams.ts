import {
  badRequest,
  isAdmin,
  messaging,
  requireUser,
  type Handler,
  type EventPublisher,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import { publishDefaultStreams } from "../channels/channel-events";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import { cannotManageDefaultChannels } from "./update-stream";

/** What changing the default channels uses: the channel and the access to it, and the events of the change. */
interface DefaultChannelDeps {
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  users: UserDirectory;
  events: EventPublisher<"messaging">;
  userGroups: UserGroupMemberships;
}

/** POST /default_streams (Zulip's add_default_stream): administrators; a channel they may read, never a private one. */
export const addDefaultStreamHandler =
  (deps: DefaultChannelDeps): Handler<typeof messaging.addDefaultStream> =>
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
  (deps: DefaultChannelDeps): Handler<typeof messaging.removeDefaultStream> =>
  async ({ stream_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw cannotManageDefaultChannels();
    const { channel } = await accessChannelById(deps, realm.id, actor, stream_id, ctx, "metadata");
    if (!channel.isDefault) return {};
    await deps.channels.update(realm.id, stream_id, { isDefault: false });
    await publishDefaultStreams(deps, ctx, realm.id);
    return {};
  };
