import {
  messagingEvents,
  type Actor,
  type CallContext,
  type UserGroupMemberships,
  type EventPublisher,
} from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { AttachmentRepository } from "./attachment.repository";
import { canSeeMessage } from "../messages/message-access";
import { attachmentView } from "./attachment-view";
import type { AttachmentDoc } from "./attachment.schema";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/**
 * Zulip's validate_attachment_request for a user: the uploader, or anyone who
 * may see one of the messages that link the file (received it, or may read
 * its channel's history).
 */
export async function mayAccessAttachment(
  deps: {
    messages: MessageRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
  },
  realmId: number,
  actor: Actor,
  attachment: AttachmentDoc,
  ctx: CallContext,
): Promise<boolean> {
  if (attachment.ownerId === actor.userId) return true;
  for (const { id } of attachment.messages) {
    const message = await deps.messages.byId(realmId, id);
    if (message && (await canSeeMessage(deps, realmId, actor, message, ctx))) return true;
  }
  return false;
}

/** Zulip's notify_attachment_update: the uploader's queues hear of the change, with the organization's space used. */
export async function publishAttachmentEvent(
  deps: { attachments: AttachmentRepository; events: EventPublisher<"messaging"> },
  realmId: number,
  ownerId: number,
  change: { op: "add" | "update"; attachment: AttachmentDoc } | { op: "remove"; attachmentId: number },
  requestId: string,
): Promise<void> {
  const upload_space_used = await deps.attachments.spaceUsed(realmId);
  deps.events.publish(
    messagingEvents.attachmentChanged,
    {
      realmId,
      userIds: [ownerId],
      event:
        change.op === "remove"
          ? { type: "attachment", op: "remove", attachment: { id: change.attachmentId }, upload_space_used }
          : { type: "attachment", op: change.op, attachment: attachmentView(change.attachment), upload_space_used },
    },
    requestId,
  );
}
