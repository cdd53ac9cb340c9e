import { badRequest, messaging, missingArgument, requireUser, type Handler, type ParamsOf } from "@teamchat/shared";
import type { Deps } from "../deps";
import { narrowResolver } from "../messages/narrow-resolver";
import { loadViewContext, messageView } from "../messages/message-view";
import type { MessageDoc } from "../messages/message.schema";
import { narrowToQuery, normalizeNarrow } from "../narrow";

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the anchor "newest" stands for. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;
const MAX_MESSAGES_PER_FETCH = 5000;
const RANGE_PARAMETERS = [
  "num_before",
  "num_after",
  "anchor",
  "message_ids",
  "include_anchor",
  "use_first_unread_anchor",
];

type Params = ParamsOf<typeof messaging.getMessages>;

/** Zulip's parse_anchor_value: null = first unread. */
function parseAnchor(p: Params): number | null {
  if (p.use_first_unread_anchor) return null;
  if (p.anchor === undefined) throw badRequest("Missing 'anchor' argument.");
  if (p.anchor === "newest") return LARGER_THAN_MAX_MESSAGE_ID;
  if (p.anchor === "oldest") return 0;
  if (p.anchor === "first_unread") return null;
  const n = typeof p.anchor === "number" ? p.anchor : /^-?\d+$/.test(p.anchor) ? Number(p.anchor) : NaN;
  if (!Number.isInteger(n)) throw badRequest("Invalid anchor");
  return Math.min(Math.max(n, 0), LARGER_THAN_MAX_MESSAGE_ID);
}

/** GET /messages (E5): a range around an anchor, or given ids, of the messages matching a narrow. */
export const getMessagesHandler =
  (
    deps: Deps<
      "messages" | "history" | "personal" | "channels" | "subscriptions" | "conversations" | "users" | "settings"
    >,
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
    let anchor = byIds ? null : parseAnchor(p);
    if ((byIds ? p.message_ids!.length : numBefore + numAfter) > MAX_MESSAGES_PER_FETCH) {
      throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    }
    if (numBefore > 0 && numAfter > 0 && !includeAnchor) {
      throw badRequest("The anchor can only be excluded at an end of the range");
    }

    const settings = await deps.settings.get(ctx);
    const resolver = await narrowResolver(deps, ctx, realm.id, actor, settings.realm_empty_topic_display_name);
    const narrow = await narrowToQuery(normalizeNarrow(p.narrow), resolver);

    let rows: MessageDoc[];
    const found = { found_anchor: false, found_oldest: false, found_newest: false };
    if (byIds) {
      rows = await deps.messages.byIds(realm.id, narrow.terms, p.message_ids!);
    } else {
      if (anchor === null) {
        const unread = await resolver.unread();
        const [first] = await deps.messages.byIds(realm.id, narrow.terms, unread, 1);
        anchor = first?.messageId ?? LARGER_THAN_MAX_MESSAGE_ID;
      }
      const anchoredLeft = anchor === 0;
      const anchoredRight = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
      const window = await deps.history.window({
        realmId: realm.id,
        narrow: narrow.terms,
        anchor,
        before: anchoredLeft ? 0 : numBefore,
        after: anchoredRight ? 0 : numAfter,
        includeAnchor,
      });
      rows = [...window.before, ...(window.anchor ? [window.anchor] : []), ...window.after];
      found.found_anchor = window.anchor !== null;
      found.found_oldest = anchoredLeft || window.before.length < numBefore;
      found.found_newest = anchoredRight || window.after.length < numAfter;
    }

    const [flags, vc] = await Promise.all([
      deps.personal.of(realm.id, actor.userId),
      loadViewContext(deps, ctx, realm, settings, rows, {
        applyMarkdown: p.apply_markdown,
        clientGravatar: p.client_gravatar,
        allowEmptyTopicName: p.allow_empty_topic_name,
      }),
    ]);
    const messages = rows.map((r) => ({ ...messageView(r, vc), flags: flags.of(r, actor.userId) }));
    return {
      ...found,
      history_limited: false,
      ...(byIds ? {} : { anchor: anchor! }),
      messages,
    };
  };
