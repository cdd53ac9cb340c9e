import {
  badRequest,
  messaging,
  requireUser,
  type Handler,
  type EventPublisher,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { accessChannelForUpdate } from "../channels/channel-access";
import { publishDefaultStreams, publishStreamUpdate } from "../channels/channel-events";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import { metadataAudience } from "../subscriptions/subscribe-users";

/**
 * DELETE /streams/{stream_id} (Zulip's do_deactivate_stream): channel
 * administrators archive it. It stops being a default channel; subscriptions
 * and messages stay. Those who saw it hear stream update is_archived
 * (clients without the archived_channels capability: stream delete).
 */
export const archiveStreamHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.archiveStream> =>
  async ({ stream_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const { channel } = await accessChannelForUpdate(deps, realm.id, actor, stream_id, ctx);
    if (channel.isArchived) throw badRequest("Channel is already deactivated");
    const audience = await metadataAudience(
      deps,
      ctx,
      realm.id,
      channel,
      await deps.subscriptions.subscriberIds(realm.id, stream_id),
    );
    await deps.channels.update(realm.id, stream_id, { isArchived: true, isDefault: false });
    if (channel.isDefault) await publishDefaultStreams(deps, ctx, realm.id);
    publishStreamUpdate(deps, ctx, realm.id, audience, {
      stream_id,
      name: channel.name,
      property: "is_archived",
      value: true,
    });
    return {};
  };
