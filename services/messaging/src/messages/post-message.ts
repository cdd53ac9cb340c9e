import {
  messagingEvents,
  withTransaction,
  type RenderedMentions,
  type HandlerContext,
  type RealmRef,
  type realmConfig,
  type notifications,
  type Connection,
  type EventPublisher,
} from "@teamchat/shared";
import { checkGroupMentions, renderMessage, type RenderDeps } from "../render/message-rendering";
import { requestLinkPreviews } from "../link-previews/link-preview-request";
import type { ChannelDoc } from "../channels/channel.schema";
import { conversationKey, type ConversationRepository } from "../conversations/conversation.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { MessageRepository } from "./message.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { TopicRepository } from "../topics/topic.repository";
import type { UserDirectory } from "../users/user-directory";
import type { AlertWordIndex } from "../alert-words/alert-word-index";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import type { LinkifierSource } from "../render/linkifier-source";
import { inFlagOrder, withoutChannelWildcard } from "../user-messages/flags";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import { mentionFlags, mentionedUserGroups, topicParticipants } from "./mentions";
import type { NotificationCandidateCache } from "./notification-candidates";
import { loadViewContext, messageView } from "./message-view";
import type { MessageDoc } from "./message.schema";
import { contentFeatures } from "./content-features";
import { pythonJson, widgetOf, type WidgetData } from "./widgets";

/** What a stored message's delivery uses: its receivers' flags, their rows and read states, and its announcement. */
export interface DeliverDeps extends FlagDeps, AnnounceDeps {
  userMessages: UserMessageRepository;
  readStates: ReadStateRepository;
}

/** What sending a message uses: its delivery, and the message stored with its rows in one transaction. */
export interface PostDeps extends DeliverDeps {
  db: Connection;
}

interface FlagDeps extends RenderDeps {
  messages: MessageRepository;
  users: UserDirectory;
  alertWords: AlertWordIndex;
  mutedUsers: MutedUserIndex;
}

interface AnnounceDeps {
  users: UserDirectory;
  notificationCandidates: Pick<NotificationCandidateCache, "of">;
  channels: ChannelDirectory;
  linkifiers: LinkifierSource;
  topics: TopicRepository;
  conversations: ConversationRepository;
  events: EventPublisher<"messaging">;
}

/** Where a message goes: a channel's topic (its subscribers receive it) or a direct conversation. */
export type Destination = Pick<MessageDoc, "type" | "recipientId" | "streamId" | "topic" | "topicKey" | "receivers"> & {
  channel?: ChannelDoc;
};

/** A channel topic as a destination: received by the channel's subscribers at send time (`receivers`, ascending). */
export async function channelDestination(
  deps: { subscriptions: SubscriptionDirectory },
  realmId: number,
  channel: ChannelDoc,
  topic: string,
): Promise<Destination> {
  const receivers = await deps.subscriptions.subscriberIds(realmId, channel.streamId);
  return {
    type: "stream",
    recipientId: channel.recipientId,
    streamId: channel.streamId,
    topic,
    topicKey: topic.toLowerCase(),
    // ascending already; a copy, as the list is the directory's own
    receivers: [...receivers],
    channel,
  };
}

/** A direct conversation among `participants` (sender included, ascending) as a destination. */
export async function directDestination(
  deps: { conversations: ConversationRepository },
  realmId: number,
  participants: number[],
): Promise<Destination> {
  const conversation = await deps.conversations.ensure(realmId, participants);
  return {
    type: "private",
    recipientId: conversation.recipientId,
    streamId: null,
    topic: "",
    topicKey: "",
    receivers: participants,
  };
}

export interface Post {
  senderId: number;
  /** normalized already (normalizeContent) */
  content: string;
  /** Zulip's client name: the HTTP client's, or "Internal" for the server's own messages */
  client: string;
  /** receivers who get it already read (the sender, Zulip's mark_as_read) */
  readBy: number[];
  /** Zulip's limit_unread_user_ids: when given, only these receivers get it unread */
  unreadOnly?: ReadonlySet<number>;
  /** receivers who get it starred (Welcome Bot's onboarding messages) */
  starredBy?: number[];
  /** Zulip's disable_external_notifications: no missed-message email or push of it */
  disableExternalNotifications?: boolean;
  messageType?: MessageDoc["messageType"];
  /** the key a retry of this send comes with (SendReceiptRepository), kept on the message */
  sendKey?: string;
  /** a widget the sender gave (a bot's widget_content), in place of one its content starts with */
  widget?: WidgetData;
  /** the sending client's local echo (POST /messages' queue_id and local_id) */
  localEcho?: { queueId: string; localId: string };
}

/**
 * Zulip's do_send_messages for one message: the message with its rendering
 * and a row for each receiver with their flags, stored together in one
 * transaction where the database supports them (withTransaction; `stored`
 * hears the message's id inside it), then announced (noted as its topic's or
 * conversation's newest, and the message event). POST /messages and the
 * server's own messages (internal-send.ts) both send through here.
 */
export async function postMessage(
  deps: PostDeps,
  ctx: HandlerContext,
  realm: RealmRef,
  settings: realmConfig.RealmSettings,
  to: Destination,
  post: Post,
  stored?: (messageId: number) => Promise<void>,
): Promise<MessageDoc> {
  const { channel: _, ...target } = to;
  const {
    html: renderedContent,
    mentions,
    linksForPreview,
  } = await renderMessage(deps, ctx, realm, post.senderId, post.content);
  await checkGroupMentions(deps, ctx, realm, post.senderId, mentions);
  const marks = await receiverMarks(deps, ctx, realm.id, to, post, mentions);
  // Zulip's do_widget_post_save_actions: a /poll or /todo message carries its widget as its first submessage
  const widget = post.widget ?? widgetOf(post.content);
  const submessages = widget && [
    {
      id: await deps.messages.nextSubmessageId(),
      senderId: post.senderId,
      msgType: "widget",
      content: pythonJson(widget),
    },
  ];
  const message = await withTransaction(deps.db, async () => {
    const message = await deps.messages.insert({
      realmId: realm.id,
      senderId: post.senderId,
      ...target,
      // a channel's subscribers hold it by their read states' intervals, and an @all mention by the message:
      // nothing stored per subscriber
      ...(target.streamId !== null && { receivers: [], receivedBySubscription: true as const }),
      ...(target.streamId !== null && mentions.streamWildcard && { streamWildcard: true as const }),
      content: post.content,
      renderedContent,
      ...contentFeatures(renderedContent),
      timestamp: Math.floor(Date.now() / 1000),
      client: post.client,
      ...(post.messageType ? { messageType: post.messageType } : {}),
      ...(submessages && { submessages }),
      ...(post.sendKey !== undefined && { sendKey: post.sendKey }),
    });
    await stored?.(message.messageId);
    await storeMarks(deps, realm.id, message, marks.flags);
    return message;
  });
  await announceMessage(deps, ctx, realm, settings, to, message, post, marks);
  requestLinkPreviews(deps.events, ctx.requestId, {
    realm,
    messageId: message.messageId,
    senderId: post.senderId,
    content: post.content,
    urls: linksForPreview,
  });
  return message;
}

/**
 * The delivery of a message stored by an attempt that failed before the end
 * of postMessage (send-once.ts resumes it): the receivers' rows, then the
 * announcement. Every step can run again for the same message: existing rows
 * stay, the notes only move forward, and the event carries a message id made
 * of the message's, so the stream keeps one. Where transactions are supported
 * the rows were stored with the message, and only the announcement is left.
 */
export async function deliverMessage(
  deps: DeliverDeps,
  ctx: HandlerContext,
  realm: RealmRef,
  settings: realmConfig.RealmSettings,
  to: Destination,
  message: MessageDoc,
  post: Post,
): Promise<void> {
  const { mentions } = await renderMessage(deps, ctx, realm, post.senderId, post.content);
  const marks = await receiverMarks(deps, ctx, realm.id, to, post, mentions);
  await storeMarks(deps, realm.id, message, marks.flags);
  await announceMessage(deps, ctx, realm, settings, to, message, post, marks);
}

/**
 * What a new message marks its receivers with: the flags of those it marks,
 * and the group that notifies those mentioned through one. A channel
 * message's receivers left out have no flag (unread, unmentioned): only its
 * sender and those it marks are listed, so that a message that mentions
 * nobody costs the same in a channel of a thousand as in one of ten. A
 * direct message, and a message with limit_unread_user_ids, lists every
 * receiver.
 */
interface ReceiverMarks {
  flags: Map<number, string[]>;
  mentionedGroups: Map<number, notifications.MentionedUserGroup>;
}

/**
 * Each marked receiver's flags on a new message: read (the sender, muted
 * senders, limit_unread_user_ids), starred, mentions, alert words; and the
 * mentioned group of those mentioned through one.
 */
async function receiverMarks(
  deps: FlagDeps,
  ctx: HandlerContext,
  realmId: number,
  to: Pick<MessageDoc, "receivers" | "streamId" | "topicKey">,
  post: Post,
  rendered: RenderedMentions,
): Promise<ReceiverMarks> {
  const { receivers } = to;
  const isReceiver = new Set(receivers);
  // Only a group or channel wildcard mention can concern any receiver; otherwise those mentioned
  // by name, or the topic's participants, are the only ones whose flags a mention may set.
  const anyReceiver = rendered.groupIds.size > 0 || rendered.streamWildcard;
  const [participants, groups] = await Promise.all([
    topicParticipants(deps, realmId, rendered, to, post.senderId),
    deps.userGroups.get(ctx),
  ]);
  const concerned = anyReceiver
    ? receivers
    : [...new Set([...rendered.userIds, ...participants])].filter((id) => isReceiver.has(id));
  const recipients = [...(await deps.users.byIds(ctx, realmId, concerned)).values()];
  const mentions = mentionFlags(rendered, recipients, groups, participants);
  const mentionedGroups =
    rendered.groupIds.size === 0
      ? new Map<number, notifications.MentionedUserGroup>()
      : mentionedUserGroups(
          rendered,
          recipients,
          groups,
          new Map([...(await deps.userGroups.byName(ctx)).values()].map((g) => [g.id, g.name])),
          await deps.users.all(ctx, realmId),
        );
  // Zulip's has_alert_word, and its muted senders: their messages arrive read for the users who muted them
  const [alerted, muters] = await Promise.all([
    deps.alertWords.usersAlerted(realmId, post.content, isReceiver),
    deps.mutedUsers.mutersOf(realmId, post.senderId),
  ]);
  const read = new Set(post.readBy);
  const starred = new Set(post.starredBy);
  const isRead = (userId: number) =>
    read.has(userId) || muters.has(userId) || (post.unreadOnly !== undefined && !post.unreadOnly.has(userId));
  const marked =
    to.streamId === null || post.unreadOnly !== undefined
      ? receivers
      : [...new Set([post.senderId, ...read, ...muters, ...starred, ...mentions.keys(), ...alerted])].filter((id) =>
          isReceiver.has(id),
        );
  const flags = new Map(
    marked.map((userId) => [
      userId,
      inFlagOrder([
        ...(isRead(userId) ? ["read"] : []),
        ...(starred.has(userId) ? ["starred"] : []),
        ...(mentions.get(userId) ?? []),
        ...(alerted.has(userId) ? ["has_alert_word"] : []),
      ]),
    ]),
  );
  return { flags, mentionedGroups };
}

/**
 * What a new message's flags store: a direct message has a row per
 * participant (a few). A channel message has none per subscriber: a row only
 * for those with a stored flag (a personal or topic mention, an alert word, a
 * star; an @all mention is the message's, MessageDoc.streamWildcard), "read"
 * in it as the read state is not the row's, and an exception in the read
 * state of those for whom it is not as the default says (read_state.ts:
 * unread but for the sender), without reading their states. Rows already
 * there (a send resumed after failing halfway) are kept, and an exception
 * added twice is one.
 */
async function storeMarks(
  deps: { userMessages: UserMessageRepository; readStates: ReadStateRepository },
  realmId: number,
  message: Pick<MessageDoc, "messageId" | "senderId" | "streamId" | "streamWildcard">,
  flags: Map<number, string[]>,
): Promise<void> {
  const { messageId, streamId } = message;
  if (streamId === null) {
    await deps.userMessages.deliver(
      realmId,
      messageId,
      [...flags].map(([userId, f]) => ({ userId, flags: f })),
    );
    return;
  }
  const marked = [...flags]
    .map(([userId, f]): [number, string[]] => [userId, message.streamWildcard ? withoutChannelWildcard(f) : f])
    .filter(([, f]) => f.some((flag) => flag !== "read"));
  await deps.userMessages.deliver(
    realmId,
    messageId,
    marked.map(([userId, f]) => ({ userId, flags: f.includes("read") ? f : ["read", ...f] })),
  );
  // a receiver without flags is unread, as the default has it but for the sender, who is always listed
  const unlike = [...flags.keys()].filter(
    (userId) => flags.get(userId)!.includes("read") !== (userId === message.senderId),
  );
  if (unlike.length) await deps.readStates.flip(realmId, streamId, unlike, messageId);
}

/**
 * A stored message made known: noted as its topic's or conversation's newest
 * (and its channel's first), and the message event to its receivers, both
 * done before this resolves, so the sender's next request sees them. The notes
 * and the event go side by side: clients keep their topic lists from the
 * message events, not from the notes, and each note is a database write that
 * waits behind other sends' writes, so waiting for it would delay every
 * delivery (docs/adr/0022-write-coalescing.md). The notes stay out of the
 * send's transaction: every send to a topic writes its one document, and
 * MongoDB aborts one of two transactions writing the same document, so a busy
 * topic would retry its sends; they only move forward, and a resumed send
 * runs them again.
 */
async function announceMessage(
  deps: AnnounceDeps,
  ctx: HandlerContext,
  realm: RealmRef,
  settings: realmConfig.RealmSettings,
  to: Destination,
  message: MessageDoc,
  post: Post,
  { flags, mentionedGroups }: ReceiverMarks,
): Promise<void> {
  const { channel } = to;
  const vc = await loadViewContext(deps, ctx, realm, settings, [message], {
    applyMarkdown: true,
    clientGravatar: false,
    allowEmptyTopicName: true,
  });
  // Zulip's get_recipient_info: who the channel's or the topic's settings may notify without a mention
  const notifiable =
    channel && !post.disableExternalNotifications
      ? await deps.notificationCandidates.of(ctx, realm.id, channel.streamId, message.topicKey, to.receivers)
      : undefined;
  await Promise.all([
    channel
      ? deps.topics.noteMessage(realm.id, channel.streamId, message.topic, message.messageId)
      : deps.conversations.noteMessage(realm.id, conversationKey(to.receivers), message.messageId),
    channel && channel.firstMessageId === null
      ? deps.channels.setFirstMessage(realm.id, channel.streamId, message.messageId)
      : undefined,
    deps.events.publishAndWait(
      messagingEvents.messageSent,
      {
        realmId: realm.id,
        userIds: to.receivers,
        message: messageView(message, vc),
        markdown: message.content,
        flags: Object.fromEntries(flags),
        ...(message.streamWildcard && { streamWildcard: true as const }),
        ...(notifiable && { notifiableUserIds: notifiable }),
        ...(mentionedGroups.size > 0 && { mentionedUserGroups: Object.fromEntries(mentionedGroups) }),
        ...(post.localEcho && { localEcho: post.localEcho }),
        ...(post.disableExternalNotifications && { disableExternalNotifications: true }),
      },
      ctx.requestId,
      `message.${realm.id}.${message.messageId}`,
    ),
  ]);
}
