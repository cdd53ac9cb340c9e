import {
  messaging,
  type BusServer,
  type EventPublisher,
  type FileStore,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { AttachmentRepository } from "../attachments/attachment.repository";
import type { UploadTokenRepository } from "../attachments/upload-token.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { MessageRepository } from "../messages/message.repository";
import type { RealmExportRepository } from "../realm-exports/realm-export.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ReceiverCache } from "../user-messages/receiver-cache";
import { listAttachmentsHandler } from "../handlers/list-attachments";
import { openTemporaryUploadHandler, openUploadHandler, temporaryUploadUrlHandler } from "../handlers/open-upload";
import { removeAttachmentHandler } from "../handlers/remove-attachment";
import { uploadFileHandler } from "../handlers/upload-file";

/**
 * Uploaded files: storing them (in chunks over the bus), opening them by link or temporary URL, and
 * their owner's list and removal.
 */
export function registerUploadOperations(
  server: BusServer,
  {
    messages,
    channels,
    subscriptions,
    userGroups,
    receivers,
    attachments,
    files,
    uploadTokens,
    exports,
    events,
  }: {
    messages: MessageRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
    attachments: AttachmentRepository;
    files: FileStore;
    uploadTokens: UploadTokenRepository;
    exports: RealmExportRepository;
    events: EventPublisher<"messaging">;
  },
): void {
  const fileChunks = files.handlers();
  server
    .handle(messaging.uploadFile, uploadFileHandler({ events, attachments, files }))
    .handle(messaging.uploadFiles.putChunk, fileChunks.put)
    .handle(messaging.uploadFiles.readChunk, fileChunks.read)
    .handle(
      messaging.openUpload,
      openUploadHandler({ messages, channels, subscriptions, userGroups, receivers, attachments, exports }),
    )
    .handle(
      messaging.temporaryUploadUrl,
      temporaryUploadUrlHandler({
        messages,
        channels,
        subscriptions,
        userGroups,
        receivers,
        attachments,
        uploadTokens,
      }),
    )
    .handle(messaging.openTemporaryUpload, openTemporaryUploadHandler({ attachments, uploadTokens }))
    .handle(messaging.listAttachments, listAttachmentsHandler({ attachments }))
    .handle(messaging.removeAttachment, removeAttachmentHandler({ events, attachments, files }));
}
