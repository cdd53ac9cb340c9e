import { messaging, type BusServer, type BusClient, type EventPublisher, type FileStore } from "@teamchat/shared";
import type { AttachmentRepository } from "../attachments/attachment.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { MessageRepository } from "../messages/message.repository";
import type { ExportQueue } from "../realm-exports/export-queue";
import type { RealmExportRepository } from "../realm-exports/realm-export.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { TopicRepository } from "../topics/topic.repository";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { UserDirectory } from "../users/user-directory";
import { importAttachmentsHandler, importChannelsHandler, importMessagesHandler } from "../handlers/import-realm";
import { deleteRealmExportHandler, exportRealmHandler, getRealmExportsHandler } from "../handlers/realm-exports";

/** An organization's export (queued for the export worker) and import. */
export function registerRealmExportImportOperations(
  server: BusServer,
  {
    bus,
    messages,
    userMessages,
    conversations,
    channels,
    subscriptions,
    readStates,
    topics,
    users,
    attachments,
    files,
    exports,
    exportQueue,
    events,
  }: {
    bus: BusClient;
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    conversations: ConversationRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    readStates: ReadStateRepository;
    topics: TopicRepository;
    users: UserDirectory;
    attachments: AttachmentRepository;
    files: FileStore;
    exports: RealmExportRepository;
    exportQueue: ExportQueue;
    events: EventPublisher<"messaging">;
  },
): void {
  server
    .handle(messaging.exportRealm, exportRealmHandler({ exports, users, events, queue: exportQueue, bus }))
    .handle(messaging.getRealmExports, getRealmExportsHandler({ exports }))
    .handle(messaging.deleteRealmExport, deleteRealmExportHandler({ exports, users, events, files }))
    .handle(messaging.importChannels, importChannelsHandler({ channels, subscriptions, messages, readStates }))
    .handle(
      messaging.importMessages,
      importMessagesHandler({ channels, subscriptions, messages, userMessages, readStates, conversations, topics }),
    )
    .handle(messaging.importAttachments, importAttachmentsHandler({ attachments, messages }));
}
