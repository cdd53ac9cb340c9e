import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";
import type { LinkifierSource } from "../render/linkifier-source";
import { renderMarkdown } from "../render/markdown";

/** POST /messages/render (Zulip's render_message_backend): the HTML a message with this content would have. */
export const renderMessageHandler =
  (deps: { users: UserDirectory; linkifiers: LinkifierSource }): Handler<typeof messaging.renderMessage> =>
  async (p, ctx) => ({
    rendered: renderMarkdown(
      p.content,
      await deps.users.mentionTargets(ctx, requireUser(ctx).realm.id),
      await deps.linkifiers.get(ctx),
    ),
  });
