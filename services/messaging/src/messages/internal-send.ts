import {
  NOTIFICATION_BOT,
  ZulipError,
  requireRealm,
  type HandlerContext,
  type SystemBot,
  type realmConfig,
} from "@teamchat/shared";
import type { ChannelDoc } from "../channels/channel.schema";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import { normalizeContent, normalizeStoredTopic } from "./message-content";
import type { MessageDoc } from "./message.schema";
import { channelDestination, directDestination, postMessage, type Destination, type PostDeps } from "./post-message";

/** What system bots' direct messages use: the organization's settings and a message's sending. */
export interface InternalSendDeps extends PostDeps {
  settings: RealmSettingsSource;
}

/** What system bots' channel messages use besides: the channel's subscribers receive them. */
export interface InternalStreamSendDeps extends InternalSendDeps {
  subscriptions: SubscriptionDirectory;
}

/** How a notice is delivered, as Zulip's internal_send_* options. */
export interface NoticeOptions {
  /** Zulip's mark_as_read_for_acting_user / mark_as_read: these receivers get it read */
  readBy?: number[];
  /** Zulip's limit_unread_user_ids: only these receivers get it unread */
  unreadOnly?: ReadonlySet<number>;
  messageType?: MessageDoc["messageType"];
  /** the system bot it comes from: Notification Bot unless said */
  sender?: SystemBot;
  /** these receivers get it starred (Zulip stars Welcome Bot's onboarding messages for the new user) */
  starredBy?: number[];
  /** Zulip's disable_external_notifications: seen in the app only, never mailed or pushed */
  disableExternalNotifications?: boolean;
}

/**
 * Sends `content` as one of the organization's system bots (Notification Bot
 * unless `opts.sender` says otherwise), client "Internal",
 * through the same path as POST /messages (no permission checks: the server
 * posts where it must). As Zulip's internal_send_* do, a message that cannot
 * be sent (e.g. a channel whose topics policy refuses the topic) is logged
 * and skipped rather than failing the request that caused it: null then.
 */
async function sendAsSystemBot(
  deps: InternalSendDeps,
  ctx: HandlerContext,
  destination: (botId: number, settings: realmConfig.RealmSettings) => Promise<Destination>,
  content: string,
  opts: NoticeOptions,
): Promise<MessageDoc | null> {
  const realm = requireRealm(ctx);
  const [settings, bot] = await Promise.all([
    deps.settings.get(ctx),
    deps.users.systemBot(ctx, realm.id, opts.sender ?? NOTIFICATION_BOT),
  ]);
  try {
    const to = await destination(bot.user_id, settings);
    return await postMessage(deps, ctx, realm, settings, to, {
      senderId: bot.user_id,
      content: normalizeContent(content, settings),
      client: "Internal",
      readBy: [bot.user_id, ...(opts.readBy ?? [])],
      unreadOnly: opts.unreadOnly,
      starredBy: opts.starredBy,
      disableExternalNotifications: opts.disableExternalNotifications,
      messageType: opts.messageType,
    });
  } catch (err) {
    if (!(err instanceof ZulipError)) throw err;
    ctx.log.warn({ err: err.message, sender: opts.sender?.email }, "system bot message not sent");
    return null;
  }
}

/** Zulip's internal_send_stream_message from a system bot. */
export const internalSendStreamMessage = (
  deps: InternalStreamSendDeps,
  ctx: HandlerContext,
  channel: ChannelDoc,
  topic: string,
  content: string,
  opts: NoticeOptions = {},
): Promise<MessageDoc | null> =>
  sendAsSystemBot(
    deps,
    ctx,
    async (_bot, settings) => {
      // the caller's copy may predate this request's changes (e.g. its first message id after a move)
      const current = (await deps.channels.byId(channel.realmId, channel.streamId)) ?? channel;
      return channelDestination(deps, channel.realmId, current, normalizeStoredTopic(topic, settings, current));
    },
    content,
    opts,
  );

/** Zulip's internal_send_private_message from a system bot to one user. */
export const internalSendPrivateMessage = (
  deps: InternalSendDeps,
  ctx: HandlerContext,
  recipientId: number,
  content: string,
  opts: NoticeOptions = {},
): Promise<MessageDoc | null> =>
  sendAsSystemBot(
    deps,
    ctx,
    (botId) =>
      directDestination(
        deps,
        requireRealm(ctx).id,
        [botId, recipientId].sort((a, b) => a - b),
      ),
    content,
    opts,
  );
