import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import { resolveNarrow, type NarrowDeps } from "../messages/message-range";
import { unhighlighted, type SearchEngine } from "../search/search-engine";

/**
 * GET /messages/matches_narrow (Zulip's messages_in_narrow_backend): of the
 * given messages the user received, those the narrow matches, with their
 * rendered content and escaped topic, a search's matches highlighted.
 */
export const matchesNarrowHandler =
  (deps: NarrowDeps & { messages: MessageRepository; search: SearchEngine }): Handler<typeof messaging.matchesNarrow> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const narrow = await resolveNarrow(deps, ctx, realm, actor, p.narrow);
    const rows = await deps.messages.byIds(
      realm.id,
      [
        ...narrow.terms,
        { kind: "receivers", userId: actor.userId, ...(await deps.personal.of(realm.id, actor.userId)).withRows },
      ],
      p.msg_ids,
    );
    const matches = await deps.search.highlight(narrow.terms, rows);
    return {
      messages: Object.fromEntries(
        rows.map((m) => [String(m.messageId), matches.get(m.messageId) ?? unhighlighted(m)]),
      ),
    };
  };
