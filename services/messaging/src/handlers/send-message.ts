import { messaging, requireUser, type Handler, type HandlerContext, type ParamsOf } from "@teamchat/shared";
import { claimAttachments, linkedPathIds, type LinkDeps } from "../attachments/attachment-links";
import type { Deps } from "../deps";
import { checkMessage, type CheckMessageDeps } from "../messages/check-message";
import { postMessage } from "../messages/post-message";
import { sendKey, sendOnce } from "../send-receipts/send-once";

type Params = ParamsOf<typeof messaging.sendMessage>;
type SendDeps = CheckMessageDeps & LinkDeps & Deps<"settings">;

/** POST /messages: a channel or direct message; each recipient gets a message event with their flags. */
export const sendMessageHandler =
  (deps: SendDeps & Deps<"sendReceipts">): Handler<typeof messaging.sendMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const id = await sendOnce(deps.sendReceipts, realm.id, actor.userId, sendKey(p), () => send(deps, p, ctx));
    return { id };
  };

/** One send, checked and posted (Zulip's check_send_message), claiming the uploads it links. */
async function send(deps: SendDeps, p: Params, ctx: HandlerContext): Promise<number> {
  const { realm, actor } = requireUser(ctx);
  const settings = await deps.settings.get(ctx);
  const { to, content } = await checkMessage(deps, ctx, realm, actor, settings, {
    type: p.type,
    to: p.to,
    topic: p.topic ?? p.subject,
    content: p.content,
  });
  const message = await postMessage(deps, ctx, realm, settings, to, {
    senderId: actor.userId,
    content,
    // sends that come through the bus from another service, not from an HTTP client, are Zulip's "Internal"
    client: ctx.client ?? "Internal",
    readBy: p.read_by_sender === false ? [] : [actor.userId],
    ...(p.queue_id !== undefined &&
      p.local_id !== undefined && { localEcho: { queueId: p.queue_id, localId: p.local_id } }),
  });
  await claimAttachments(deps, ctx, realm.id, actor, message, linkedPathIds(content));
  return message.messageId;
}
