import { badRequest, requireRealm, requireUser, type Handler, type messaging } from "@teamchat/shared";
import { canAddSubscribers, canReadContent } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import type { Deps } from "../deps";
import { subscribeUsers } from "../subscriptions/subscribe-users";

/**
 * Zulip's access_streams_for_invite: each channel one the inviter may read
 * (else "Invalid channel ID {id}. No invites were sent."), then each a default
 * channel or one they may add subscribers to (FL 342).
 */
export const checkInvitationChannelsHandler =
  (
    deps: Deps<"channels" | "subscriptions" | "settings" | "userGroups">,
  ): Handler<typeof messaging.checkInvitationChannels> =>
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

/**
 * Zulip's notice to the referrer (process_new_human_user): "{user} accepted
 * your invitation to join Zulip!" as a direct message from the Notification
 * Bot. This branch has no Notification Bot (it comes with the notification-bot
 * work on main): the hook logs the notice until it is sent through
 * internalSendPrivateMessage there.
 */
export function notifyReferrerOnJoin(
  ctx: Parameters<Handler<typeof messaging.setUpInvitedUser>>[1],
  referrerId: number,
  newUser: { user_id: number; full_name: string },
): void {
  const content = `@_**${newUser.full_name}|${newUser.user_id}** accepted your invitation to join Zulip!`;
  ctx.log.info(
    { referrerId, newUserId: newUser.user_id, content },
    "referrer notice not sent: no Notification Bot yet",
  );
}

/**
 * Zulip's set_up_streams_for_new_human_user for an accepted invitation: the
 * invitation's channels that still exist and are not archived, and the
 * organization's default channels when asked; then the referrer's notice.
 */
export const setUpInvitedUserHandler =
  (
    deps: Deps<"channels" | "subscriptions" | "users" | "events" | "userGroups">,
  ): Handler<typeof messaging.setUpInvitedUser> =>
  async (p, ctx) => {
    const realm = requireRealm(ctx);
    const defaults = p.include_realm_default_subscriptions ? await deps.channels.defaultIds(realm.id) : [];
    const channels = (await deps.channels.byIds(realm.id, [...new Set([...p.stream_ids, ...defaults])])).filter(
      (ch) => !ch.isArchived,
    );
    if (channels.length > 0) await subscribeUsers(deps, ctx, realm.id, channels, [p.user_id]);
    if (p.referrer_id !== null) {
      const newUser = (await deps.users.byIds(ctx, realm.id, [p.user_id])).get(p.user_id);
      if (newUser) notifyReferrerOnJoin(ctx, p.referrer_id, newUser);
    }
    return { subscribed_stream_ids: channels.map((ch) => ch.streamId).sort((a, b) => a - b) };
  };
