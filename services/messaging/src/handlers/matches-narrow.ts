import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import { resolveNarrow, type NarrowDeps } from "../messages/message-range";

/** Django's escape(), which Zulip applies to a topic before highlighting it. */
const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]!);

/**
 * Zulip's highlight_string: each match in the text outside HTML tags wrapped
 * in `<span class="highlight">`. Zulip finds the matches with PostgreSQL's
 * full-text search; here they are the search words themselves, case-insensitive,
 * as the narrow's search matches them.
 */
function highlight(html: string, words: string[]): string {
  if (!words.length) return html;
  const pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");
  return html.replace(/(<[^>]*>)|([^<]+)/g, (_m, tag: string | undefined, text: string | undefined) =>
    tag !== undefined ? tag : text!.replace(pattern, (found) => `<span class="highlight">${found}</span>`),
  );
}

/**
 * GET /messages/matches_narrow (Zulip's messages_in_narrow_backend): of the
 * given messages the user received, those the narrow matches, with their
 * rendered content and escaped topic, search words highlighted.
 */
export const matchesNarrowHandler =
  (deps: NarrowDeps & { messages: MessageRepository }): Handler<typeof messaging.matchesNarrow> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const narrow = await resolveNarrow(deps, ctx, realm, actor, p.narrow);
    const words = narrow.terms.flatMap((t) => (t.kind === "search" ? t.words : []));
    const rows = await deps.messages.byIds(
      realm.id,
      [...narrow.terms, { kind: "receivers", userId: actor.userId }],
      p.msg_ids,
    );
    return {
      messages: Object.fromEntries(
        rows.map((m) => [
          String(m.messageId),
          { match_content: highlight(m.renderedContent, words), match_subject: highlight(escapeHtml(m.topic), words) },
        ]),
      ),
    };
  };
