import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  DIGEST_WORK_CONSUMER,
  consumeNotificationWork,
  identity,
  isGuest,
  listUnsubscribeHeaders,
  metricsOf,
  noreplyAddress,
  notifications,
  RealmMailContexts,
  type BusClient,
  type CallContext,
  type MailTransport,
} from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { ChannelDoc } from "../channels/channel.schema";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import { receivedWith } from "../user-messages/receiver-cache";
import type { MessageRepository } from "../messages/message.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import type { DigestRepository } from "./digest.repository";
import {
  enoughTraffic,
  hotTopics,
  topicsOf,
  type DigestMessage,
  type DigestSender,
  type DigestTopic,
} from "./digest-content";
import { renderDigestMail, type DigestChannel, type HotConversation } from "./render";

/** The request id of the mailer's bus calls, in the logs of the services it asks. */
const REQUEST_ID = "digest-email";
/** Channels whose topics are kept for the users of the same week (Zulip's get_recent_topics lru_cache size). */
const MAX_CACHED_CHANNELS = 5000;

interface Deps {
  nc: NatsConnection;
  bus: BusClient;
  users: UserDirectory;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  messages: MessageRepository;
  readStates: ReadStateRepository;
  digests: DigestRepository;
  transport: MailTransport;
  log: Logger;
}

/** Whether a later subscriber reads the channel's earlier messages (else the digest shows only those the user received). */
const sharedHistory = (c: ChannelDoc) => !c.inviteOnly || c.historyPublicToSubscribers;

/**
 * Zulip's digest_emails worker (bulk_handle_digest_email): consumes
 * `notify.digest`, one user per item, and mails that user's digest of the
 * week unless it was mailed already (a redelivered item) or there is too
 * little to tell (Zulip's enough_traffic). A failure is tried again with the
 * queue's back-off.
 */
export class DigestMailer {
  private readonly realms: RealmMailContexts;
  private readonly channelTopics = new Map<string, Promise<DigestTopic[]>>();
  private consumer: { stop(): Promise<void> } | undefined;

  constructor(private readonly deps: Deps) {
    this.realms = new RealmMailContexts(deps.bus);
  }

  async start(): Promise<void> {
    this.consumer = await consumeNotificationWork(
      this.deps.nc,
      DIGEST_WORK_CONSUMER,
      notifications.digestNotice,
      (notice) => this.mail(notice),
      this.deps.log,
    );
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }

  private async mail(notice: notifications.DigestNotice): Promise<void> {
    const { realmId, userId, cutoff, week } = notice;
    const { digests, transport } = this.deps;
    if (await digests.wasSent(realmId, userId, week)) return;
    const ctx = await this.realms.context(realmId, REQUEST_ID);
    const {
      users: [user],
    } = await this.deps.bus.request(identity.getNotificationRecipients, { user_ids: [userId] }, ctx);
    if (!user || !user.is_active || user.is_bot || !user.settings.enable_digest_emails) return;
    const { realm, message_content_allowed_in_email_notifications: realmAllows } = await this.realms.get(
      realmId,
      REQUEST_ID,
    );
    const showContent = realmAllows && user.settings.message_content_in_email_notifications;
    const summary = (await this.deps.users.byIds(ctx, realmId, [userId])).get(userId);
    const newChannels = await this.newChannels(realmId, cutoff, summary ? isGuest(summary) : true);
    const hotConversations = showContent ? await this.hotConversations(ctx, userId, cutoff) : [];
    const newMessagesCount = showContent ? 0 : await this.newMessagesCount(ctx, userId, cutoff);
    if (!enoughTraffic(hotConversations.length, newChannels.length, newMessagesCount, showContent)) return;
    const { url: unsubscribeUrl } = await this.deps.bus.request(
      identity.getUnsubscribeLink,
      { user_id: userId, email_type: "digest" },
      ctx,
    );
    const { subject, text, html } = renderDigestMail({
      realmName: realm.name,
      realmUri: realm.uri,
      unsubscribeUrl,
      showContent,
      contentDisabledByRealm: !realmAllows,
      contentDisabledByUser: !user.settings.message_content_in_email_notifications,
      hotConversations,
      newChannels,
      newMessagesCount,
    });
    const sent = metricsOf(this.deps.nc).mailSent;
    try {
      await transport.send({
        to: user.delivery_email,
        from: `Zulip digest <${noreplyAddress(realm.host)}>`,
        subject,
        text,
        html,
        headers: listUnsubscribeHeaders(unsubscribeUrl),
        fileName: `digest-${realmId}-${userId}-${week}`,
      });
    } catch (err) {
      sent.inc({ kind: "digest", outcome: "failed" });
      throw err;
    }
    sent.inc({ kind: "digest", outcome: "sent" });
    await digests.markSent(realmId, userId, week, new Date());
  }

  /**
   * Zulip's gather_new_streams: the organization's channels made since the
   * cutoff that the user may see, public ones (web-public only for guests).
   */
  private async newChannels(realmId: number, cutoff: number, guest: boolean): Promise<DigestChannel[]> {
    return (await this.deps.channels.all(realmId))
      .filter((c) => !c.isArchived && c.dateCreated > cutoff && (guest ? c.isWebPublic : !c.inviteOnly))
      .sort((a, b) => a.streamId - b.streamId)
      .map((c) => ({ id: c.streamId, name: c.name }));
  }

  /**
   * Zulip's hot conversations: the hottest topics since the cutoff of the
   * channels the user is subscribed to and has not muted.
   */
  private async hotConversations(ctx: CallContext, userId: number, cutoff: number): Promise<HotConversation[]> {
    const realmId = ctx.realm!.id;
    const subscribed = (await this.deps.subscriptions.ofUser(realmId, userId))
      .filter((s) => s.active && !s.isMuted)
      .map((s) => s.streamId);
    const channels = (await this.deps.channels.byIds(realmId, subscribed))
      .filter((c) => !c.isArchived)
      .sort((a, b) => a.streamId - b.streamId);
    const byId = new Map(channels.map((c) => [c.streamId, c]));
    const received = await this.deps.readStates.received(realmId, userId);
    const topics = (
      await Promise.all(
        channels.map((c) =>
          sharedHistory(c)
            ? this.cachedTopics(ctx, c, cutoff)
            : this.channelTopicsFor(ctx, c, cutoff, { userId, intervals: received.get(c.streamId) }),
        ),
      )
    ).flat();
    const hot = hotTopics(topics);
    const senders = await this.senders(
      ctx,
      hot.flatMap((t) => t.sampleMessages),
    );
    return hot.map((t) => ({
      channel: { id: t.channelId, name: byId.get(t.channelId)!.name },
      topic: t.topic,
      messages: t.sampleMessages.map((m) => ({
        senderName: senders.get(m.senderId)?.fullName ?? "",
        content: m.content,
        renderedContent: m.renderedContent,
      })),
      count: t.humanMessages - t.sampleMessages.length,
      participants: [...t.humanSenders].sort(),
    }));
  }

  /** A channel's topics since the cutoff, the same for every subscriber: kept for the other users of the week. */
  private cachedTopics(ctx: CallContext, channel: ChannelDoc, cutoff: number): Promise<DigestTopic[]> {
    const key = `${channel.realmId}:${channel.streamId}:${cutoff}`;
    let topics = this.channelTopics.get(key);
    if (!topics) {
      if (this.channelTopics.size >= MAX_CACHED_CHANNELS) {
        this.channelTopics.delete(this.channelTopics.keys().next().value!);
      }
      topics = this.channelTopicsFor(ctx, channel, cutoff);
      this.channelTopics.set(key, topics);
      topics.catch(() => this.channelTopics.delete(key));
    }
    return topics;
  }

  /** A channel's topics since the cutoff; with a `receiver`, of the messages that user received only. */
  private async channelTopicsFor(
    ctx: CallContext,
    channel: ChannelDoc,
    cutoff: number,
    receiver?: { userId: number; intervals: readonly number[] | undefined },
  ): Promise<DigestTopic[]> {
    const messages = (
      await this.deps.messages.sentSince(channel.realmId, [{ kind: "channel", streamId: channel.streamId }], cutoff)
    ).filter((m) => receiver === undefined || receivedWith(m, receiver.userId, receiver.intervals));
    return topicsOf(channel.streamId, messages, await this.senders(ctx, messages));
  }

  private async senders(ctx: CallContext, messages: DigestMessage[]): Promise<Map<number, DigestSender>> {
    const ids = [...new Set(messages.map((m) => m.senderId))];
    const users = await this.deps.users.byIds(ctx, ctx.realm!.id, ids);
    return new Map([...users].map(([id, u]) => [id, { fullName: u.full_name, isBot: u.is_bot }]));
  }

  /** Zulip's get_new_messages_count: the messages the user received since the cutoff, from humans. */
  private async newMessagesCount(ctx: CallContext, userId: number, cutoff: number): Promise<number> {
    const channels = await this.deps.readStates.received(ctx.realm!.id, userId);
    const messages = await this.deps.messages.sentSince(
      ctx.realm!.id,
      [{ kind: "receivers", userId, channels }],
      cutoff,
    );
    const senders = await this.senders(ctx, messages);
    return messages.filter((m) => senders.get(m.senderId)?.isBot === false).length;
  }
}
