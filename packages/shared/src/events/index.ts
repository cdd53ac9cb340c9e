/**
 * The event catalogue: every domain event, defined once, by publisher.
 * Publishers send through EventPublisher, consumers parse with the same
 * definitions (subscribeEvent).
 */
import type { EventDefinition } from "./define";
import * as identityEvents from "./identity";
import * as messagingEvents from "./messaging";
import * as notificationsEvents from "./notifications";
import * as realmConfigEvents from "./realm-config";

export * from "./define";
export * from "./feed";
export * from "./stream";
export { identityEvents, messagingEvents, notificationsEvents, realmConfigEvents };

/**
 * Events that notifications copies as they are into the queues of their
 * audience (payload `{realmId, userIds, event}`). The message and
 * update_message events are shaped per queue and are not in this list.
 */
export const PASS_THROUGH_EVENTS = [
  identityEvents.realmUser,
  identityEvents.userSettings,
  identityEvents.userGroup,
  identityEvents.realmBot,
  identityEvents.realmUserSettingsDefaults,
  identityEvents.navigationView,
  identityEvents.device,
  identityEvents.userStatus,
  identityEvents.presence,
  identityEvents.invitesChanged,
  identityEvents.onboardingSteps,
  identityEvents.pushDevice,
  messagingEvents.streamCreated,
  messagingEvents.streamUpdated,
  messagingEvents.streamDeleted,
  messagingEvents.defaultStreamsChanged,
  messagingEvents.messagesDeleted,
  messagingEvents.subscriptionChanged,
  messagingEvents.messageFlagsUpdated,
  messagingEvents.reactionChanged,
  messagingEvents.submessageAdded,
  messagingEvents.mutedTopicsChanged,
  messagingEvents.userTopicChanged,
  messagingEvents.alertWordsChanged,
  messagingEvents.mutedUsersChanged,
  messagingEvents.draftsChanged,
  messagingEvents.savedSnippetsChanged,
  messagingEvents.scheduledMessagesChanged,
  messagingEvents.remindersChanged,
  realmConfigEvents.customProfileFields,
  realmConfigEvents.channelFolder,
  realmConfigEvents.realmUpdated,
  realmConfigEvents.realmLinkifiers,
  realmConfigEvents.realmPlaygrounds,
  messagingEvents.attachmentChanged,
  realmConfigEvents.realmEmojiChanged,
  notificationsEvents.typing,
  notificationsEvents.typingEditMessage,
  messagingEvents.realmExportChanged,
  identityEvents.realmExportConsent,
] as const satisfies readonly EventDefinition[];
