import {
  IdAllocator,
  UserGroupMemberships,
  messaging,
  registerStateHandler,
  type RunningService,
  type ServiceDeps,
} from "@teamchat/shared";
import { ChannelDirectory } from "./channels/channel-directory";
import { ChannelRepository } from "./channels/channel.repository";
import { channelsState } from "./channels/channels.state";
import { ConversationRepository } from "./conversations/conversation.repository";
import { RealmSettingsSource, type MessagingDeps } from "./deps";
import { addReactionHandler } from "./handlers/add-reaction";
import { createChannelHandler } from "./handlers/create-channel";
import { deleteMessageHandler } from "./handlers/delete-message";
import { deleteTopicHandler } from "./handlers/delete-topic";
import { getConversationAudienceHandler } from "./handlers/get-conversation-audience";
import { getMessageHandler } from "./handlers/get-message";
import { getMessageHistoryHandler } from "./handlers/get-message-history";
import { getMessagesHandler } from "./handlers/get-messages";
import { getReadReceiptsHandler } from "./handlers/get-read-receipts";
import { getStreamHandler } from "./handlers/get-stream";
import { getStreamTopicsHandler } from "./handlers/get-stream-topics";
import { getStreamsHandler } from "./handlers/get-streams";
import { getSubscriptionsHandler } from "./handlers/get-subscriptions";
import { matchesNarrowHandler } from "./handlers/matches-narrow";
import { markAllAsReadHandler, markStreamAsReadHandler, markTopicAsReadHandler } from "./handlers/mark-as-read";
import { removeReactionHandler } from "./handlers/remove-reaction";
import { renderMessageHandler } from "./handlers/render-message";
import { sendMessageHandler } from "./handlers/send-message";
import { checkInvitationChannelsHandler, setUpInvitedUserHandler } from "./handlers/invitations";
import { subscribeHandler } from "./handlers/subscribe";
import { unsubscribeHandler } from "./handlers/unsubscribe";
import { updateSubscriptionPropertiesHandler } from "./handlers/update-subscription-properties";
import { updateSubscriptionsHandler } from "./handlers/update-subscriptions";
import { updateMessageHandler } from "./handlers/update-message";
import { updateMessageFlagsHandler } from "./handlers/update-message-flags";
import { updateMessageFlagsForNarrowHandler } from "./handlers/update-message-flags-for-narrow";
import { updateMutedTopicHandler } from "./handlers/update-muted-topic";
import { updateUserTopicHandler } from "./handlers/update-user-topic";
import { MessageCache } from "./messages/message-cache";
import { MessageHistory } from "./messages/message-history";
import { MessageRepository } from "./messages/message.repository";
import { RecentMessages } from "./messages/recent-messages";
import { messagesState } from "./messages/messages.state";
import { unreadsState } from "./messages/unreads.state";
import { SubscriptionDirectory } from "./subscriptions/subscription-directory";
import { SubscriptionRepository } from "./subscriptions/subscription.repository";
import { subscriptionsState } from "./subscriptions/subscriptions.state";
import { TopicRepository } from "./topics/topic.repository";
import { PersonalIndex } from "./user-messages/personal-index";
import { UserMessageRepository } from "./user-messages/user-message.repository";
import { UserTopicIndex } from "./user-topics/user-topic-index";
import { UserTopicRepository } from "./user-topics/user-topic.repository";
import { userTopicsState } from "./user-topics/user-topics.state";
import { UserDirectory } from "./users/user-directory";

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildMessaging(deps: ServiceDeps<"messaging">): Promise<RunningService> {
  const ids = new IdAllocator(deps.db);
  const messageCache = new MessageCache(deps.nc, deps.log);
  const messages = new MessageRepository(deps.db, ids, messageCache);
  const userMessages = new UserMessageRepository(deps.db);
  const conversations = new ConversationRepository(deps.db, ids);
  const recent = new RecentMessages(messages, deps.nc, deps.log);
  const channels = new ChannelRepository(deps.db, ids);
  const subscriptions = new SubscriptionRepository(deps.db);
  const userTopics = new UserTopicRepository(deps.db);
  const m: MessagingDeps = {
    channels: new ChannelDirectory(channels, deps.events, deps.nc, deps.log),
    subscriptions: new SubscriptionDirectory(subscriptions, deps.events, deps.nc, deps.log),
    messages,
    history: new MessageHistory(messages, recent),
    userMessages,
    personal: new PersonalIndex(messages, userMessages, conversations, deps.nc, deps.log),
    conversations,
    topics: new TopicRepository(deps.db),
    userTopics: new UserTopicIndex(userTopics, deps.nc, deps.log),
    users: new UserDirectory(deps.bus, deps.nc, deps.log),
    events: deps.events,
    settings: new RealmSettingsSource(deps.bus),
    userGroups: new UserGroupMemberships(deps.nc, deps.bus, deps.log),
  };
  await Promise.all(
    [channels, subscriptions, m.messages, m.userMessages, m.conversations, m.topics, userTopics].map((r) => r.init()),
  );

  const stateProviders = [
    ...messagesState(m),
    ...subscriptionsState(m),
    ...channelsState(m),
    ...userTopicsState(m),
    ...unreadsState(m),
  ];

  deps.server
    .handle(messaging.createChannel, createChannelHandler(m))
    .handle(messaging.getStreams, getStreamsHandler(m))
    .handle(messaging.getStreamById, getStreamHandler(m))
    .handle(messaging.getSubscriptions, getSubscriptionsHandler(m))
    .handle(messaging.subscribe, subscribeHandler(m))
    .handle(messaging.checkInvitationChannels, checkInvitationChannelsHandler(m))
    .handle(messaging.setUpInvitedUser, setUpInvitedUserHandler(m))
    .handle(messaging.unsubscribe, unsubscribeHandler(m))
    .handle(messaging.updateSubscriptions, updateSubscriptionsHandler(m))
    .handle(messaging.updateSubscriptionProperties, updateSubscriptionPropertiesHandler(m))
    .handle(messaging.sendMessage, sendMessageHandler(m))
    .handle(messaging.getMessages, getMessagesHandler(m))
    .handle(messaging.getMessage, getMessageHandler(m))
    .handle(messaging.updateMessage, updateMessageHandler(m))
    .handle(messaging.deleteMessage, deleteMessageHandler(m))
    .handle(messaging.deleteTopic, deleteTopicHandler(m, deps.config.DELETE_TOPIC_TIME_BUDGET_SECONDS))
    .handle(messaging.getMessageHistory, getMessageHistoryHandler(m))
    .handle(messaging.addReaction, addReactionHandler(m))
    .handle(messaging.removeReaction, removeReactionHandler(m))
    .handle(messaging.renderMessage, renderMessageHandler(m))
    .handle(messaging.matchesNarrow, matchesNarrowHandler(m))
    .handle(messaging.getReadReceipts, getReadReceiptsHandler(m))
    .handle(messaging.updateMessageFlags, updateMessageFlagsHandler(m))
    .handle(messaging.updateMessageFlagsForNarrow, updateMessageFlagsForNarrowHandler(m))
    .handle(messaging.markAllAsRead, markAllAsReadHandler(m))
    .handle(messaging.markStreamAsRead, markStreamAsReadHandler(m))
    .handle(messaging.markTopicAsRead, markTopicAsReadHandler(m))
    .handle(messaging.getStreamTopics, getStreamTopicsHandler(m))
    .handle(messaging.updateMutedTopic, updateMutedTopicHandler(m))
    .handle(messaging.updateUserTopic, updateUserTopicHandler(m))
    .handle(messaging.getConversationAudience, getConversationAudienceHandler(m))
    .handle(messaging.registerState, registerStateHandler(messaging.registerState, stateProviders));
  return {
    stop: () => {
      m.users.stop();
      m.personal.stop();
      m.userTopics.stop();
      recent.stop();
      messageCache.stop();
      m.channels.stop();
      m.subscriptions.stop();
      m.userGroups.stop();
    },
  };
}
