import type { Handler, messaging } from "@teamchat/shared";
import { renderMarkdown } from "../render/markdown";

/** POST /messages/render (Zulip's render_message_backend): the HTML a message with this content would have. */
export const renderMessageHandler = (): Handler<typeof messaging.renderMessage> => (p) => ({
  rendered: renderMarkdown(p.content),
});
