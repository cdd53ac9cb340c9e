import { badRequest, messaging, missingArgument, requireUser, type Handler } from "@teamchat/shared";
import type { MessageHistory } from "../messages/message-history";
import type { LinkifierSource } from "../render/linkifier-source";
import { loadViewContext, messageView } from "../messages/message-view";
import type { MessageDoc } from "../messages/message.schema";
import {
  checkAnchorExclusion,
  messageRange,
  parseAnchor,
  resolveNarrow,
  type NarrowDeps,
} from "../messages/message-range";
import { isSearch, type SearchEngine } from "../search/search-engine";

const MAX_MESSAGES_PER_FETCH = 5000;
const RANGE_PARAMETERS = [
  "num_before",
  "num_after",
  "anchor",
  "message_ids",
  "include_anchor",
  "use_first_unread_anchor",
];

/** GET /messages (Zulip's get_messages_backend): a range around an anchor, or given ids, of the messages matching a narrow. */
export const getMessagesHandler =
  (
    deps: NarrowDeps & {
      history: MessageHistory;
      linkifiers: LinkifierSource;
      search: SearchEngine;
    },
  ): Handler<typeof messaging.getMessages> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const byIds = p.message_ids !== undefined;
    if (byIds && (p.num_before || p.num_after || p.anchor !== undefined || p.use_first_unread_anchor)) {
      throw badRequest(`Unsupported parameter combination: ${RANGE_PARAMETERS.join(", ")}`, {
        parameters: RANGE_PARAMETERS.join(", "),
      });
    }
    if (!byIds && p.num_before === undefined) throw missingArgument("num_before");
    if (!byIds && p.num_after === undefined) throw missingArgument("num_after");
    const numBefore = p.num_before ?? 0;
    const numAfter = p.num_after ?? 0;
    const includeAnchor = byIds ? false : (p.include_anchor ?? true);
    const anchor = byIds ? null : parseAnchor(p.anchor, p.use_first_unread_anchor);
    if ((byIds ? p.message_ids!.length : numBefore + numAfter) > MAX_MESSAGES_PER_FETCH) {
      throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    }
    checkAnchorExclusion(numBefore, numAfter, includeAnchor);

    const settings = await deps.settings.get(ctx);
    const narrow = await resolveNarrow(deps, ctx, realm, actor, p.narrow);
    const range = byIds
      ? null
      : await messageRange(deps, realm.id, narrow, { anchor, numBefore, numAfter, includeAnchor });
    const rows: MessageDoc[] = range?.rows ?? (await deps.messages.byIds(realm.id, narrow.terms, p.message_ids!));

    const [flags, vc, matches] = await Promise.all([
      deps.personal.of(realm.id, actor.userId),
      loadViewContext(deps, ctx, realm, settings, rows, {
        applyMarkdown: p.apply_markdown,
        clientGravatar: p.client_gravatar,
        allowEmptyTopicName: p.allow_empty_topic_name,
      }),
      // a search's results carry its matches marked, as Zulip's get_search_fields gives them
      narrow.terms.some(isSearch) ? deps.search.highlight(narrow.terms, rows) : null,
    ]);
    const messages = rows.map((r) =>
      Object.assign(messageView(r, vc), { flags: flags.of(r) }, matches?.get(r.messageId)),
    );
    return {
      found_anchor: range?.found_anchor ?? false,
      found_oldest: range?.found_oldest ?? false,
      found_newest: range?.found_newest ?? false,
      history_limited: false,
      ...(range && { anchor: range.anchor }),
      messages,
    };
  };
