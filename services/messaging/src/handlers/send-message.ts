import { messaging, requireUser, type Handler } from "@teamchat/shared";
import type { Deps } from "../deps";
import { checkMessage, type CheckMessageDeps } from "../messages/check-message";
import { postMessage } from "../messages/post-message";

/** POST /messages: a channel or direct message; each recipient gets a message event with their flags. */
export const sendMessageHandler =
  (deps: CheckMessageDeps & Deps<"settings">): Handler<typeof messaging.sendMessage> =>
  async (p, ctx) => {
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
    });
    return { id: message.messageId };
  };
