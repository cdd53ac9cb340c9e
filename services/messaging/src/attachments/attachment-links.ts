import type { Actor, CallContext, EventPublisher, UserGroupMemberships } from "@teamchat/shared";
import type { AttachmentRepository } from "./attachment.repository";
import type { MessageRepository } from "../messages/message.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { MessageDoc } from "../messages/message.schema";
import { mayAccessAttachment, publishAttachmentEvent } from "./attachment-access";
import type { ReceiverCache } from "../user-messages/receiver-cache";

export interface LinkDeps {
  attachments: AttachmentRepository;
  events: EventPublisher<"messaging">;
  messages: MessageRepository;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  receivers: ReceiverCache;
}

/**
 * The uploads a message's content links (Zulip's potential_attachment_path_ids):
 * `/user_uploads/<path id>` as a relative or absolute link. The path id's first
 * segment is the organization's id.
 */
export function linkedPathIds(content: string): string[] {
  if (!content.includes("/user_uploads/")) return [];
  const ids = [...content.matchAll(/\/user_uploads\/(\d+\/[^\s)\]>"'?#]+)/g)].map((m) => decodeURI(m[1]!));
  return [...new Set(ids)];
}

/**
 * Zulip's do_claim_attachments: each linked upload the sender may see (their
 * own, or one a message they can see links) is linked to the message and its
 * uploader hears `attachment` update; links to files that do not exist or
 * that the sender may not see are left alone.
 */
export async function claimAttachments(
  deps: LinkDeps,
  ctx: CallContext,
  realmId: number,
  sender: Actor,
  message: Pick<MessageDoc, "messageId" | "timestamp">,
  pathIds: string[],
): Promise<void> {
  for (const attachment of await deps.attachments.byPathIds(realmId, pathIds)) {
    if (!(await mayAccessAttachment(deps, realmId, sender, attachment, ctx))) continue;
    const linked = await deps.attachments.linkMessage(realmId, attachment.attachmentId, {
      id: message.messageId,
      dateSent: message.timestamp,
    });
    if (linked)
      await publishAttachmentEvent(deps, realmId, linked.ownerId, { op: "update", attachment: linked }, ctx.requestId);
  }
}

/**
 * Zulip's check_attachment_reference_change for a content edit: uploads the
 * new content no longer links stop listing the message, newly linked ones are
 * claimed.
 */
export async function updateAttachmentLinks(
  deps: LinkDeps,
  ctx: CallContext,
  realmId: number,
  editor: Actor,
  message: Pick<MessageDoc, "messageId" | "timestamp" | "content">,
  newContent: string,
): Promise<void> {
  const before = new Set(linkedPathIds(message.content));
  const after = linkedPathIds(newContent);
  const dropped = [...before].filter((id) => !after.includes(id));
  if (dropped.length) await deps.attachments.unlinkMessages(realmId, [message.messageId], dropped);
  await claimAttachments(
    deps,
    ctx,
    realmId,
    editor,
    message,
    after.filter((id) => !before.has(id)),
  );
}
