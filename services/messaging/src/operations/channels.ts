import {
  messaging,
  type BusServer,
  type Connection,
  type EventPublisher,
  type RealmEmojiSource,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { AlertWordIndex } from "../alert-words/alert-word-index";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import type { MessageRepository } from "../messages/message.repository";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import type { NotificationCandidateCache } from "../messages/notification-candidates";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { LinkifierSource } from "../render/linkifier-source";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { TopicRepository } from "../topics/topic.repository";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { UserDirectory } from "../users/user-directory";
import { archiveStreamHandler } from "../handlers/archive-stream";
import { createChannelHandler } from "../handlers/create-channel";
import { addDefaultStreamHandler, removeDefaultStreamHandler } from "../handlers/default-streams";
import { getStreamHandler } from "../handlers/get-stream";
import { getStreamEmailAddressHandler } from "../handlers/get-stream-email-address";
import { getStreamIdHandler } from "../handlers/get-stream-id";
import { getStreamsHandler } from "../handlers/get-streams";
import { getSubscribersHandler } from "../handlers/get-subscribers";
import { getSubscriptionStatusHandler } from "../handlers/get-subscription-status";
import { getSubscriptionsHandler } from "../handlers/get-subscriptions";
import { getUserChannelsHandler } from "../handlers/get-user-channels";
import { setUpNewHumanUserHandler } from "../handlers/set-up-new-human-user";
import { subscribeHandler } from "../handlers/subscribe";
import { testWelcomeBotCustomMessageHandler } from "../handlers/test-welcome-bot-custom-message";
import { unsubscribeHandler } from "../handlers/unsubscribe";
import { updateStreamHandler } from "../handlers/update-stream";
import { updateSubscriptionPropertiesHandler } from "../handlers/update-subscription-properties";
import { updateSubscriptionsHandler } from "../handlers/update-subscriptions";

interface ChannelOperationDeps {
  db: Connection;
  messages: MessageRepository;
  userMessages: UserMessageRepository;
  conversations: ConversationRepository;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  readStates: ReadStateRepository;
  channelMessages: ChannelMessageCache;
  personal: PersonalIndex;
  topics: TopicRepository;
  users: UserDirectory;
  notificationCandidates: NotificationCandidateCache;
  alertWords: AlertWordIndex;
  mutedUsers: MutedUserIndex;
  settings: RealmSettingsSource;
  linkifiers: LinkifierSource;
  realmEmoji: RealmEmojiSource;
  /** the server's INLINE_URL_EMBED_PREVIEW: organizations may turn link previews on */
  linkPreviewsAllowed: boolean;
  events: EventPublisher<"messaging">;
}

/**
 * Channels and subscriptions: channel creation, the channel lists and a channel's facts, its
 * administration, subscribing and unsubscribing, and a new human user's set-up (the default channels
 * and the welcome messages).
 */
export function registerChannelOperations(server: BusServer, deps: ChannelOperationDeps): void {
  registerChannels(server, deps);
  registerNewUserSetUp(server, deps);
  registerSubscriptions(server, deps);
}

/** Creation, the lists and facts of channels, and their administration. */
function registerChannels(
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
  }: ChannelOperationDeps,
): void {
  server
    .handle(
      messaging.createChannel,
      createChannelHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
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
    .handle(messaging.getStreams, getStreamsHandler({ channels, subscriptions, userGroups, users }))
    .handle(messaging.getStreamById, getStreamHandler({ channels, subscriptions, userGroups }))
    .handle(messaging.getStreamId, getStreamIdHandler({ channels, subscriptions, userGroups }))
    .handle(messaging.getSubscribers, getSubscribersHandler({ channels, subscriptions, userGroups, users }))
    .handle(
      messaging.getStreamEmailAddress,
      getStreamEmailAddressHandler({ channels, subscriptions, userGroups, users }),
    )
    .handle(
      messaging.getSubscriptionStatus,
      getSubscriptionStatusHandler({ channels, subscriptions, userGroups, users }),
    )
    .handle(
      messaging.updateStream,
      updateStreamHandler({ channels, subscriptions, userGroups, users, events, settings }),
    )
    .handle(messaging.archiveStream, archiveStreamHandler({ channels, subscriptions, userGroups, users, events }))
    .handle(messaging.addDefaultStream, addDefaultStreamHandler({ channels, subscriptions, userGroups, users, events }))
    .handle(
      messaging.removeDefaultStream,
      removeDefaultStreamHandler({ channels, subscriptions, userGroups, users, events }),
    );
}

/** A new human user's set-up, and the welcome bot's test message. */
function registerNewUserSetUp(
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
  }: ChannelOperationDeps,
): void {
  server
    .handle(
      messaging.setUpNewHumanUser,
      setUpNewHumanUserHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
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
      messaging.testWelcomeBotCustomMessage,
      testWelcomeBotCustomMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        userGroups,
        readStates,
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
    );
}

/** Subscriptions: the lists, subscribing, unsubscribing and a subscription's settings. */
function registerSubscriptions(
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
    channelMessages,
    personal,
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
  }: ChannelOperationDeps,
): void {
  server
    .handle(messaging.getSubscriptions, getSubscriptionsHandler({ channels, subscriptions, userGroups }))
    .handle(messaging.getUserChannels, getUserChannelsHandler({ channels, subscriptions, userGroups, users }))
    .handle(
      messaging.subscribe,
      subscribeHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
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
      messaging.unsubscribe,
      unsubscribeHandler({
        channels,
        subscriptions,
        userGroups,
        messages,
        userMessages,
        readStates,
        channelMessages,
        personal,
        users,
        events,
        settings,
      }),
    )
    .handle(
      messaging.updateSubscriptions,
      updateSubscriptionsHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        channelMessages,
        personal,
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
      messaging.updateSubscriptionProperties,
      updateSubscriptionPropertiesHandler({ channels, subscriptions, userGroups, events }),
    );
}
