import { requireUser, type HandlerContext, channelLink, silentMention } from "@teamchat/shared";
import type { ChannelDoc } from "../channels/channel.schema";
import {
  internalSendPrivateMessage,
  internalSendStreamMessage,
  type InternalStreamSendDeps,
} from "../messages/internal-send";
import type { SubscribedPair } from "./subscribe-users";

/** Zulip's settings.MAX_BULK_NEW_SUBSCRIPTION_MESSAGES: above this many new subscribers, no "subscribed you" messages. */
export const MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100;

/** Zulip's Realm.STREAM_EVENTS_NOTIFICATION_TOPIC_NAME: where a channel's own events are told. */
export const CHANNEL_EVENTS_TOPIC = "channel events";

/** Zulip's you_were_just_subscribed_message. */
export function youWereSubscribedMessage(
  actor: { full_name: string; user_id: number },
  channelNames: string[],
): string {
  const names = [...channelNames].sort();
  if (names.length === 1) return `${silentMention(actor)} subscribed you to #**${names[0]}**.`;
  return `${silentMention(actor)} subscribed you to the following channels:\n\n${names.map((n) => `* #**${n}**\n`).join("")}`;
}

/** The new-channel announcement (Zulip's send_messages_for_new_subscribers, `announce`). */
export function newChannelsAnnouncement(actor: { full_name: string; user_id: number }, created: ChannelDoc[]): string {
  const links = created.map(channelLink).join(", ");
  return created.length > 1
    ? `${silentMention(actor)} created the following channels: ${links}.`
    : `${silentMention(actor)} created a new channel ${links}.`;
}

/** The first message of a new channel's "channel events" topic, by its permission policy (get_stream_permission_policy_key). */
export function channelCreatedMessage(actor: { full_name: string; user_id: number }, channel: ChannelDoc): string {
  const policy = channel.isWebPublic
    ? "Web-public"
    : !channel.inviteOnly
      ? "Public"
      : channel.historyPublicToSubscribers
        ? "Private, shared history"
        : "Private, protected history";
  const description = channel.description === "" ? "*No description.*" : channel.description;
  return `**${policy}** channel created by ${silentMention(actor)}. **Description:**\n\`\`\`\` quote\n${description}\n\`\`\`\``;
}

/**
 * Zulip's send_messages_for_new_subscribers: Notification Bot tells each human
 * someone else subscribed to existing channels (unless the request asked not
 * to, or subscribed more than MAX_BULK_NEW_SUBSCRIPTION_MESSAGES users),
 * announces created channels in the organization's new-channel announcement
 * channel when `announce` is set, and opens each created channel's "channel
 * events" topic. All are read for the acting user (mark_as_read). Returns
 * whether the "subscribed you" messages were sent (Zulip's
 * new_subscription_messages_sent).
 */
export async function sendMessagesForNewSubscribers(
  deps: InternalStreamSendDeps,
  ctx: HandlerContext,
  added: SubscribedPair[],
  created: ChannelDoc[],
  opts: { announce: boolean; sendNewSubscriptionMessages: boolean },
): Promise<boolean> {
  const { realm, actor } = requireUser(ctx);
  const acting = { full_name: actor.fullName, user_id: actor.userId };
  const markRead = { readBy: [actor.userId] };
  const createdIds = new Set(created.map((c) => c.streamId));

  const newSubscribers = [...new Set(added.map((p) => p.userId))];
  const sendSubscribed =
    opts.sendNewSubscriptionMessages && newSubscribers.length <= MAX_BULK_NEW_SUBSCRIPTION_MESSAGES;
  if (sendSubscribed) {
    const users = await deps.users.byIds(ctx, realm.id, newSubscribers);
    for (const userId of newSubscribers) {
      // not to oneself, not to bots, not about channels this request created
      if (userId === actor.userId || users.get(userId)?.is_bot !== false) continue;
      const names = added
        .filter((p) => p.userId === userId && !createdIds.has(p.channel.streamId))
        .map((p) => p.channel.name);
      if (!names.length) continue;
      await internalSendPrivateMessage(deps, ctx, userId, youWereSubscribedMessage(acting, names), markRead);
    }
  }

  if (opts.announce && created.length) {
    const { new_stream_announcements_stream_id: announcementsId } = await deps.settings.get(ctx);
    const announcements = announcementsId === null ? null : await deps.channels.byId(realm.id, announcementsId);
    if (announcements) {
      await internalSendStreamMessage(
        deps,
        ctx,
        announcements,
        "new channels",
        newChannelsAnnouncement(acting, created),
        markRead,
      );
    }
  }

  for (const channel of created) {
    await internalSendStreamMessage(
      deps,
      ctx,
      channel,
      CHANNEL_EVENTS_TOPIC,
      channelCreatedMessage(acting, channel),
      markRead,
    );
  }
  return sendSubscribed;
}
