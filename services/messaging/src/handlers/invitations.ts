import { badRequest, requireUser, type Handler, type messaging, type UserGroupMemberships } from "@teamchat/shared";
import { canAddSubscribers, canReadContent } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";

/**
 * Zulip's access_streams_for_invite: each channel one the inviter may read
 * (else "Invalid channel ID {id}. No invites were sent."), then each a default
 * channel or one they may add subscribers to (FL 342).
 */
export const checkInvitationChannelsHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    settings: RealmSettingsSource;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.checkInvitationChannels> =>
  async ({ stream_ids }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (stream_ids.length === 0) return {};
    const [mine, groups, settings] = await Promise.all([
      deps.subscriptions.subscribedStreamIds(realm.id, actor.userId),
      deps.userGroups.get(ctx),
      deps.settings.get(ctx),
    ]);
    const channels: ChannelDoc[] = [];
    for (const streamId of stream_ids) {
      const ch = await deps.channels.byId(realm.id, streamId);
      if (!ch || ch.isArchived || !canReadContent(actor, ch, mine.has(streamId), groups)) {
        throw badRequest(`Invalid channel ID ${streamId}. No invites were sent.`);
      }
      channels.push(ch);
    }
    if (channels.some((ch) => !ch.isDefault && !canAddSubscribers(actor, ch, settings, groups))) {
      throw badRequest("You do not have permission to subscribe other users to channels.");
    }
    return {};
  };
