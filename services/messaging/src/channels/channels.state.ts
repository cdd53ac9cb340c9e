import { messaging, provideState, requireUser, type StateProvider, type UserGroupMemberships } from "@teamchat/shared";
import type { ChannelDirectory } from "./channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import { canReadContent } from "./channel-access";
import { channelView } from "./channel-view";

/**
 * register's streams (the channels the user may read, by name; archived ones for clients that declared
 * archived_channels), default channels and default channel groups.
 */
export const channelsState = (deps: {
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
}): StateProvider[] => [
  provideState(messaging.streamsState, async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [channels, subscribed, groups] = await Promise.all([
      deps.channels.all(realm.id),
      deps.subscriptions.subscribedStreamIds(realm.id, actor.userId),
      deps.userGroups.get(ctx),
    ]);
    return {
      streams: channels
        .filter(
          (ch) =>
            (!ch.isArchived || p.client_capabilities.archived_channels === true) &&
            canReadContent(actor, ch, subscribed.has(ch.streamId), groups),
        )
        .sort((a, b) => a.name.localeCompare(b.name))
        .map(channelView),
    };
  }),
  provideState(messaging.defaultStreamsState, async (_p, ctx) => ({
    realm_default_streams: await deps.channels.defaultIds(requireUser(ctx).realm.id),
  })),
  // Default channel groups are not kept here yet: Zulip's empty list.
  provideState(messaging.defaultStreamGroupsState, async () => ({ realm_default_stream_groups: [] })),
];
