import { messaging, requireUser, type Handler, type HandlerContext, type ParamsOf } from "@teamchat/shared";
import { claimAttachments, linkedPathIds, type LinkDeps } from "../attachments/attachment-links";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { SendReceiptRepository } from "../send-receipts/send-receipt.repository";
import { checkMessage, type CheckMessageDeps } from "../messages/check-message";
import { deliverMessage, postMessage, type Post, type PostDeps } from "../messages/post-message";
import { sendOnce } from "../send-receipts/send-once";
import { widgetFromContent } from "../messages/widgets";

type Params = ParamsOf<typeof messaging.sendMessage>;
interface SendDeps extends CheckMessageDeps, PostDeps, LinkDeps {
  settings: RealmSettingsSource;
}

/** POST /messages: a channel or direct message; each recipient gets a message event with their flags. */
export const sendMessageHandler =
  (deps: SendDeps & { sendReceipts: SendReceiptRepository }): Handler<typeof messaging.sendMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const key = messaging.sendKey(p);
    const id = await sendOnce(deps.sendReceipts, realm.id, actor.userId, key, {
      send: async (stored) => (await send(deps, p, key, ctx, { stored })).messageId,
      finish: (messageId) => send(deps, p, key, ctx, { messageId }).then(() => undefined),
      storedEarlier: async () => (await deps.messages.sentWithKey(realm.id, actor.userId, key!))?.messageId ?? null,
    });
    return { id };
  };

/**
 * What an attempt does: post a new message (telling `stored` its id once
 * stored), or finish the delivery of the message an earlier attempt of the
 * same request stored.
 */
type Attempt = { stored: (messageId: number) => Promise<void> } | { messageId: number };

/** One send, checked and posted (Zulip's check_send_message), claiming the uploads it links. */
async function send(deps: SendDeps, p: Params, key: string | undefined, ctx: HandlerContext, attempt: Attempt) {
  const { realm, actor } = requireUser(ctx);
  const settings = await deps.settings.get(ctx);
  const { to, content } = await checkMessage(deps, ctx, realm, actor, settings, {
    type: p.type,
    to: p.to,
    topic: p.topic ?? p.subject,
    content: p.content,
  });
  const widget = p.widget_content === undefined ? undefined : widgetFromContent(p.widget_content);
  const post: Post = {
    senderId: actor.userId,
    content,
    // sends that come through the bus from another service, not from an HTTP client, are Zulip's "Internal"
    client: ctx.client ?? "Internal",
    readBy: p.read_by_sender === false ? [] : [actor.userId],
    ...(p.queue_id !== undefined &&
      p.local_id !== undefined && { localEcho: { queueId: p.queue_id, localId: p.local_id } }),
    ...(key !== undefined && { sendKey: key }),
    ...(widget && { widget }),
  };
  const storedMessage = "messageId" in attempt ? await deps.messages.byId(realm.id, attempt.messageId) : null;
  const message =
    storedMessage ??
    (await postMessage(deps, ctx, realm, settings, to, post, "stored" in attempt ? attempt.stored : undefined));
  if (storedMessage) await deliverMessage(deps, ctx, realm, settings, to, storedMessage, post);
  await claimAttachments(deps, ctx, realm.id, actor, message, linkedPathIds(content));
  return message;
}
