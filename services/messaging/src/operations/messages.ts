import {
  messaging,
  type BusServer,
  type Connection,
  type EventPublisher,
  type RealmEmojiSource,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { AlertWordIndex } from "../alert-words/alert-word-index";
import type { AttachmentRepository } from "../attachments/attachment.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import type { MessageHistory } from "../messages/message-history";
import type { MessageRepository } from "../messages/message.repository";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import type { NotificationCandidateCache } from "../messages/notification-candidates";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { LinkifierSource } from "../render/linkifier-source";
import type { SearchEngine } from "../search/search-engine";
import type { SendReceiptRepository } from "../send-receipts/send-receipt.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { TopicRepository } from "../topics/topic.repository";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { ReceiverCache } from "../user-messages/receiver-cache";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import type { UserDirectory } from "../users/user-directory";
import { addReactionHandler } from "../handlers/add-reaction";
import { deleteMessageHandler } from "../handlers/delete-message";
import { deleteTopicHandler } from "../handlers/delete-topic";
import { getConversationAudienceHandler } from "../handlers/get-conversation-audience";
import { getMessageHandler } from "../handlers/get-message";
import { getMessageHistoryHandler } from "../handlers/get-message-history";
import { getMessagesHandler } from "../handlers/get-messages";
import { getReadReceiptsHandler } from "../handlers/get-read-receipts";
import { getStreamTopicsHandler } from "../handlers/get-stream-topics";
import { markAllAsReadHandler, markStreamAsReadHandler, markTopicAsReadHandler } from "../handlers/mark-as-read";
import { matchesNarrowHandler } from "../handlers/matches-narrow";
import { removeReactionHandler } from "../handlers/remove-reaction";
import { renderMessageHandler } from "../handlers/render-message";
import { reportMessageHandler } from "../handlers/report-message";
import { sendMessageHandler } from "../handlers/send-message";
import { sendSubmessageHandler } from "../handlers/send-submessage";
import { updateMessageHandler } from "../handlers/update-message";
import { updateMessageFlagsHandler } from "../handlers/update-message-flags";
import { updateMessageFlagsForNarrowHandler } from "../handlers/update-message-flags-for-narrow";
import { updateMutedTopicHandler } from "../handlers/update-muted-topic";
import { updateUserTopicHandler } from "../handlers/update-user-topic";

interface MessageOperationDeps {
  db: Connection;
  search: SearchEngine;
  messages: MessageRepository;
  userMessages: UserMessageRepository;
  conversations: ConversationRepository;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  readStates: ReadStateRepository;
  channelMessages: ChannelMessageCache;
  history: MessageHistory;
  receivers: ReceiverCache;
  personal: PersonalIndex;
  topics: TopicRepository;
  userTopics: UserTopicIndex;
  users: UserDirectory;
  notificationCandidates: NotificationCandidateCache;
  alertWords: AlertWordIndex;
  mutedUsers: MutedUserIndex;
  sendReceipts: SendReceiptRepository;
  settings: RealmSettingsSource;
  linkifiers: LinkifierSource;
  realmEmoji: RealmEmojiSource;
  /** the server's INLINE_URL_EMBED_PREVIEW: organizations may turn link previews on */
  linkPreviewsAllowed: boolean;
  attachments: AttachmentRepository;
  events: EventPublisher<"messaging">;
  /** how long one request deleting a topic's messages may run */
  timeBudgetSeconds: number;
}

/**
 * Messages, their flags and topics: sending, reading, editing, deleting and reporting messages, their
 * reactions, submessages and read receipts, rendering, narrow matching, marking as read, and a
 * channel's topics.
 */
export function registerMessageOperations(server: BusServer, deps: MessageOperationDeps): void {
  registerSendingAndReading(server, deps);
  registerDeletingAndReporting(server, deps);
  registerMessageDetails(server, deps);
  registerFlags(server, deps);
  registerTopics(server, deps);
}

/** Sending, reading and editing messages. */
function registerSendingAndReading(
  server: BusServer,
  {
    db,
    search,
    messages,
    userMessages,
    conversations,
    channels,
    subscriptions,
    userGroups,
    readStates,
    channelMessages,
    history,
    receivers,
    personal,
    topics,
    userTopics,
    users,
    notificationCandidates,
    alertWords,
    mutedUsers,
    sendReceipts,
    settings,
    linkifiers,
    realmEmoji,
    linkPreviewsAllowed,
    attachments,
    events,
  }: MessageOperationDeps,
): void {
  server
    .handle(
      messaging.sendMessage,
      sendMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        receivers,
        topics,
        users,
        notificationCandidates,
        alertWords,
        mutedUsers,
        sendReceipts,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        attachments,
        events,
      }),
    )
    .handle(
      messaging.getMessages,
      getMessagesHandler({
        search,
        messages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        history,
        receivers,
        personal,
        userTopics,
        users,
        settings,
        linkifiers,
      }),
    )
    .handle(
      messaging.getMessage,
      getMessageHandler({
        messages,
        channels,
        subscriptions,
        userGroups,
        receivers,
        personal,
        users,
        settings,
        linkifiers,
      }),
    )
    .handle(
      messaging.updateMessage,
      updateMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        channelMessages,
        receivers,
        topics,
        users,
        notificationCandidates,
        alertWords,
        mutedUsers,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        attachments,
        events,
      }),
    );
}

/** Deleting a message or a topic's, and reporting one. */
function registerDeletingAndReporting(
  server: BusServer,
  {
    db,
    messages,
    userMessages,
    conversations,
    channels,
    subscriptions,
    userGroups,
    readStates,
    receivers,
    topics,
    users,
    notificationCandidates,
    alertWords,
    mutedUsers,
    settings,
    linkifiers,
    realmEmoji,
    linkPreviewsAllowed,
    attachments,
    events,
    timeBudgetSeconds,
  }: MessageOperationDeps,
): void {
  server
    .handle(
      messaging.deleteMessage,
      deleteMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        receivers,
        topics,
        users,
        settings,
        attachments,
        events,
      }),
    )
    .handle(
      messaging.reportMessage,
      reportMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        receivers,
        topics,
        users,
        notificationCandidates,
        alertWords,
        mutedUsers,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(
      messaging.deleteTopic,
      deleteTopicHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        receivers,
        topics,
        users,
        settings,
        attachments,
        events,
        timeBudgetSeconds,
      }),
    );
}

/**
 * A message's edit history, reactions, submessages and read receipts, rendering content and matching a
 * narrow.
 */
function registerMessageDetails(
  server: BusServer,
  {
    search,
    messages,
    userMessages,
    conversations,
    channels,
    subscriptions,
    userGroups,
    readStates,
    receivers,
    personal,
    userTopics,
    users,
    mutedUsers,
    settings,
    linkifiers,
    realmEmoji,
    linkPreviewsAllowed,
    events,
  }: MessageOperationDeps,
): void {
  server
    .handle(
      messaging.getMessageHistory,
      getMessageHistoryHandler({ messages, channels, subscriptions, userGroups, receivers, settings }),
    )
    .handle(
      messaging.addReaction,
      addReactionHandler({
        messages,
        userMessages,
        channels,
        subscriptions,
        userGroups,
        receivers,
        users,
        realmEmoji,
        events,
      }),
    )
    .handle(
      messaging.removeReaction,
      removeReactionHandler({ messages, channels, subscriptions, userGroups, receivers, users, realmEmoji, events }),
    )
    .handle(
      messaging.sendSubmessage,
      sendSubmessageHandler({ messages, channels, subscriptions, userGroups, receivers, events }),
    )
    .handle(
      messaging.renderMessage,
      renderMessageHandler({ channels, userGroups, users, settings, linkifiers, realmEmoji, linkPreviewsAllowed }),
    )
    .handle(
      messaging.matchesNarrow,
      matchesNarrowHandler({
        search,
        messages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        receivers,
        personal,
        userTopics,
        users,
        settings,
      }),
    )
    .handle(
      messaging.getReadReceipts,
      getReadReceiptsHandler({
        messages,
        userMessages,
        channels,
        subscriptions,
        userGroups,
        readStates,
        receivers,
        users,
        mutedUsers,
        settings,
      }),
    );
}

/** Flags of listed messages or a narrow's, and marking everything, a channel or a topic as read. */
function registerFlags(
  server: BusServer,
  {
    messages,
    userMessages,
    conversations,
    channels,
    subscriptions,
    userGroups,
    readStates,
    channelMessages,
    history,
    receivers,
    personal,
    userTopics,
    users,
    settings,
    events,
  }: MessageOperationDeps,
): void {
  server
    .handle(
      messaging.updateMessageFlags,
      updateMessageFlagsHandler({
        messages,
        userMessages,
        channels,
        subscriptions,
        userGroups,
        readStates,
        channelMessages,
        receivers,
        personal,
        userTopics,
        events,
      }),
    )
    .handle(
      messaging.updateMessageFlagsForNarrow,
      updateMessageFlagsForNarrowHandler({
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        channelMessages,
        history,
        receivers,
        personal,
        userTopics,
        users,
        settings,
        events,
      }),
    )
    .handle(
      messaging.markAllAsRead,
      markAllAsReadHandler({ userMessages, readStates, channelMessages, personal, events }),
    )
    .handle(
      messaging.markStreamAsRead,
      markStreamAsReadHandler({
        channels,
        subscriptions,
        userGroups,
        messages,
        userMessages,
        readStates,
        channelMessages,
        personal,
        events,
      }),
    )
    .handle(
      messaging.markTopicAsRead,
      markTopicAsReadHandler({
        channels,
        subscriptions,
        userGroups,
        messages,
        userMessages,
        readStates,
        channelMessages,
        personal,
        events,
      }),
    );
}

/**
 * A channel's topics, a user's settings of a topic, and who a conversation reaches (for typing
 * notifications).
 */
function registerTopics(
  server: BusServer,
  {
    messages,
    channels,
    subscriptions,
    userGroups,
    readStates,
    receivers,
    topics,
    userTopics,
    users,
    settings,
    events,
  }: MessageOperationDeps,
): void {
  server
    .handle(
      messaging.getStreamTopics,
      getStreamTopicsHandler({ channels, subscriptions, userGroups, messages, topics, readStates, settings }),
    )
    .handle(
      messaging.updateMutedTopic,
      updateMutedTopicHandler({ channels, subscriptions, userGroups, userTopics, events, settings }),
    )
    .handle(
      messaging.updateUserTopic,
      updateUserTopicHandler({ channels, subscriptions, userGroups, userTopics, events, settings }),
    )
    .handle(
      messaging.getConversationAudience,
      getConversationAudienceHandler({ messages, channels, subscriptions, userGroups, receivers, users }),
    );
}
