import type { Handler, ReactionType, messaging } from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import { contentFeatures } from "../messages/content-features";
import type { MessageRepository } from "../messages/message.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { TopicRepository } from "../topics/topic.repository";
import { STORED_FLAGS, inFlagOrder } from "../user-messages/flags";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { AttachmentRepository } from "../attachments/attachment.repository";

/**
 * Internal (import-realm): channels as they were (archived, default, their
 * description's HTML) and their subscriptions with each person's settings,
 * through the directories, so caches and other services' copies hear of them.
 * Each subscription still active gets its read state, as a subscription
 * does (subscribe-users.ts): what is sent after the import arrives unread.
 */
export const importChannelsHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    messages: MessageRepository;
    readStates: ReadStateRepository;
  }): Handler<typeof messaging.importChannels> =>
  async ({ channels, subscriptions }, ctx) => {
    const realmId = ctx.realm!.id;
    const streams = new Map<number, number>();
    for (const c of channels) {
      const created = await deps.channels.insert(realmId, {
        name: c.name,
        description: c.description,
        renderedDescription: c.rendered_description,
        inviteOnly: c.invite_only,
        isWebPublic: c.is_web_public,
        historyPublicToSubscribers: c.history_public_to_subscribers,
        messageRetentionDays: c.message_retention_days,
        topicsPolicy: c.topics_policy as never,
        folderId: null,
        isDefault: c.is_default,
        dateCreated: c.date_created,
        creatorId: c.creator,
        groupSettings: {},
      });
      if (c.archived) await deps.channels.update(realmId, created.streamId, { isArchived: true });
      streams.set(c.old_id, created.streamId);
    }
    const rows = subscriptions.filter((s) => streams.has(s.old_stream_id));
    await deps.subscriptions.add(
      realmId,
      rows.map((s) => ({ userId: s.user_id, streamId: streams.get(s.old_stream_id)!, color: s.color })),
    );
    for (const s of rows) {
      const streamId = streams.get(s.old_stream_id)!;
      await deps.subscriptions.setSettings(realmId, s.user_id, streamId, {
        isMuted: s.is_muted,
        pinToTop: s.pin_to_top,
        desktopNotifications: s.desktop_notifications,
        audibleNotifications: s.audible_notifications,
        pushNotifications: s.push_notifications,
        emailNotifications: s.email_notifications,
        wildcardMentionsNotify: s.wildcard_mentions_notify,
      });
    }
    const inactive = rows.filter((s) => !s.active);
    if (inactive.length) {
      await deps.subscriptions.remove(
        realmId,
        inactive.map((s) => ({ userId: s.user_id, streamId: streams.get(s.old_stream_id)! })),
      );
    }
    const active = rows
      .filter((s) => s.active)
      .map((s) => ({ userId: s.user_id, streamId: streams.get(s.old_stream_id)! }));
    await deps.readStates.openWhereMissing(realmId, active, await deps.messages.latestId());
    ctx.log.info({ channels: streams.size, subscriptions: rows.length }, "channels imported");
    return { streams: [...streams] };
  };

/**
 * Internal (import-realm): messages stored as they were sent (time, client,
 * rendering, edit history, reactions, each receiver's flags), without the
 * events of a send: the organization has no clients yet. Flags are stored as
 * a send stores them (post-message.ts): a direct message's in a row per
 * participant; a channel message's "read" in the users' read states, its
 * other flags in a row only for the users who have one. Each channel's
 * subscribers, and anyone with an unread message there, have everything up to
 * the batch's newest message of the channel read but their unread ones
 * (exceptions below the watermark): the messages arrive in the order sent, so
 * the last batch leaves the watermark at the channel's newest.
 */
export const importMessagesHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    readStates: ReadStateRepository;
    conversations: ConversationRepository;
    topics: TopicRepository;
  }): Handler<typeof messaging.importMessages> =>
  async ({ messages }, ctx) => {
    const realmId = ctx.realm!.id;
    const ids: number[] = [];
    /** per channel: its newest message of the batch, and each user's unread messages */
    const imported = new Map<number, { newest: number; unread: Map<number, number[]> }>();
    for (const m of messages) {
      const channel = m.stream_id === null ? null : await deps.channels.byId(realmId, m.stream_id);
      const conversation = m.dm_user_ids ? await deps.conversations.ensure(realmId, m.dm_user_ids) : null;
      if (!channel && !conversation) throw new Error(`message of no channel or conversation: ${JSON.stringify(m)}`);
      const stored = await deps.messages.insert({
        realmId,
        senderId: m.sender,
        type: channel ? "stream" : "private",
        recipientId: channel ? channel.recipientId : conversation!.recipientId,
        streamId: channel?.streamId ?? null,
        topic: m.topic,
        topicKey: m.topic.toLowerCase(),
        receivers: m.user_messages.map((r) => r.user_id),
        content: m.content,
        renderedContent: m.rendered_content,
        ...contentFeatures(m.rendered_content),
        timestamp: m.date_sent,
        client: m.client,
        ...(m.edit_history?.length ? { editHistory: m.edit_history } : {}),
        ...(m.last_edit_time !== null ? { lastEditTimestamp: m.last_edit_time } : {}),
        reactions: m.reactions.map((r) => ({
          userId: r.user_id,
          emojiName: r.emoji_name,
          emojiCode: r.emoji_code,
          reactionType: r.reaction_type as ReactionType,
        })),
        ...(m.resolve_topic_notification ? { messageType: "resolve_topic_notification" as const } : {}),
      });
      if (channel) {
        const ofChannel = imported.get(channel.streamId) ?? { newest: 0, unread: new Map<number, number[]>() };
        ofChannel.newest = Math.max(ofChannel.newest, stored.messageId);
        for (const r of m.user_messages.filter((u) => !u.flags.includes("read"))) {
          const ids = ofChannel.unread.get(r.user_id) ?? [];
          ids.push(stored.messageId);
          ofChannel.unread.set(r.user_id, ids);
        }
        imported.set(channel.streamId, ofChannel);
      }
      await deps.userMessages.deliver(
        realmId,
        stored.messageId,
        channel
          ? m.user_messages
              .filter((r) => r.flags.some((f) => (STORED_FLAGS as readonly string[]).includes(f)))
              .map((r) => ({ userId: r.user_id, flags: inFlagOrder(["read", ...r.flags]) }))
          : m.user_messages.map((r) => ({ userId: r.user_id, flags: r.flags })),
      );
      if (channel) {
        await deps.topics.noteMessage(realmId, channel.streamId, stored.topic, stored.messageId);
        if (channel.firstMessageId === null)
          await deps.channels.setFirstMessage(realmId, channel.streamId, stored.messageId);
      } else {
        await deps.conversations.noteMessage(realmId, conversation!.key, stored.messageId);
      }
      ids.push(stored.messageId);
    }
    for (const [streamId, { newest, unread }] of imported) {
      const users = new Set([...(await deps.subscriptions.subscriberIds(realmId, streamId)), ...unread.keys()]);
      await deps.readStates.raiseImported(
        realmId,
        streamId,
        newest,
        [...users].map((userId) => ({ userId, unread: unread.get(userId) ?? [] })),
      );
    }
    return { ids };
  };

/** Internal (import-realm): the uploads, their bytes already stored, linked to their messages. */
export const importAttachmentsHandler =
  (deps: {
    attachments: AttachmentRepository;
    messages: MessageRepository;
  }): Handler<typeof messaging.importAttachments> =>
  async ({ attachments }, ctx) => {
    const realmId = ctx.realm!.id;
    for (const a of attachments) {
      const stored = await deps.attachments.insert(
        realmId,
        {
          pathId: a.path_id,
          fileId: a.file_id,
          name: a.name,
          contentType: a.content_type,
          size: a.size,
          ownerId: a.owner,
        },
        new Date(a.create_time * 1000),
      );
      for (const id of a.message_ids) {
        const message = await deps.messages.byId(realmId, id);
        if (message)
          await deps.attachments.linkMessage(realmId, stored.attachmentId, { id, dateSent: message.timestamp });
      }
    }
    return {};
  };
