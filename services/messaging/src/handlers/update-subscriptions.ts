import { badRequest, messaging, type Handler, type UserGroupMemberships } from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import type { InternalStreamSendDeps } from "../messages/internal-send";
import { addSubscriptions } from "./subscribe";
import { removeSubscriptions } from "./unsubscribe";

/**
 * PATCH /users/me/subscriptions (Zulip's update_subscriptions_backend): POST
 * with `add` (other parameters at their defaults), then DELETE with `delete`,
 * for the user themselves; one reply with both results. Unlike Zulip's
 * transaction, an error of the second part leaves the first one done.
 */
export const updateSubscriptionsHandler = (
  deps: InternalStreamSendDeps & {
    channels: ChannelDirectory;
    personal: PersonalIndex;
    readStates: ReadStateRepository;
    channelMessages: ChannelMessageCache;
    userGroups: UserGroupMemberships;
  },
): Handler<typeof messaging.updateSubscriptions> => {
  return async (p, ctx) => {
    const add = p.add ?? [];
    const remove = p.delete ?? [];
    if (!add.length && !remove.length) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    const { subscribed, already_subscribed } = await addSubscriptions(
      deps,
      messaging.subscribe.params.parse({ subscriptions: add }),
      ctx,
    );
    const { removed, not_removed } = await removeSubscriptions(deps, { subscriptions: remove }, ctx);
    return { subscribed, already_subscribed, removed, not_removed };
  };
};
