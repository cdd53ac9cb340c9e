import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import { renderMessage, type RenderDeps } from "../render/message-rendering";

/**
 * POST /messages/render (Zulip's render_message_backend): the HTML a message
 * with this content would have, rendered as sending renders it.
 */
export const renderMessageHandler =
  (deps: RenderDeps): Handler<typeof messaging.renderMessage> =>
  async (p, ctx) => {
    const { actor, realm } = requireUser(ctx);
    return { rendered: (await renderMessage(deps, ctx, realm, actor.userId, p.content)).html };
  };
