import MarkdownIt from "markdown-it";
import { linkifierRule, type CompiledLinkifier } from "./linkifiers";

// Zulip-like rendering: raw HTML is escaped, bare URLs become links, single newlines are line breaks.
const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
type StateInline = Parameters<Parameters<typeof md.inline.ruler.before>[2]>[0];

/** Who a message may mention: the organization's users, looked up by id and by full name. */
export interface MentionTargets {
  byId: Map<number, { user_id: number; full_name: string }>;
  /** lowercased full name → users with it (a name two users share mentions nobody without |id) */
  byName: Map<string, Array<{ user_id: number; full_name: string }>>;
}

export function mentionTargets(users: Array<{ user_id: number; full_name: string }>): MentionTargets {
  const byName = new Map<string, Array<{ user_id: number; full_name: string }>>();
  for (const u of users) byName.set(u.full_name.toLowerCase(), [...(byName.get(u.full_name.toLowerCase()) ?? []), u]);
  return { byId: new Map(users.map((u) => [u.user_id, u])), byName };
}

const CHANNEL_WILDCARDS = new Set(["all", "everyone", "channel", "stream"]);

/** Zulip's mention syntax: @**Name**, @**Name|id**, @**|id**, silent @_**...**, and the wildcards. */
const MENTION = /^@(_?)\*\*([^*\n]+?)\*\*/;
/** Zulip renders a mention only after these (or at the start): not inside words or addresses. */
const MENTION_MAY_FOLLOW = /[\s'"({[/<]/;

type Mention =
  | { kind: "user"; userId: number; name: string; silent: boolean }
  | { kind: "channel"; name: string; silent: boolean }
  | { kind: "topic"; silent: boolean };

/** Zulip's UserMentionPattern: the mention's target, or null to leave the text as it is. */
function resolveMention(text: string, silent: boolean, targets: MentionTargets): Mention | null {
  const withId = /^(.*)\|(\d+)$/.exec(text);
  if (withId) {
    const user = targets.byId.get(Number(withId[2]));
    // @**name|id** must name that user exactly
    if (!user || (withId[1] !== "" && withId[1] !== user.full_name)) return null;
    return { kind: "user", userId: user.user_id, name: user.full_name, silent };
  }
  const key = text.toLowerCase();
  if (CHANNEL_WILDCARDS.has(key)) return { kind: "channel", name: text, silent };
  if (key === "topic") return { kind: "topic", silent };
  const named = targets.byName.get(key);
  if (named?.length !== 1) return null;
  return { kind: "user", userId: named[0]!.user_id, name: named[0]!.full_name, silent };
}

function mentionRule(state: StateInline, silentCheck: boolean): boolean {
  const targets = (state.env as { mentionTargets?: MentionTargets }).mentionTargets;
  if (!targets || state.src.charCodeAt(state.pos) !== 0x40 /* @ */) return false;
  if (state.pos > 0 && !MENTION_MAY_FOLLOW.test(state.src[state.pos - 1]!)) return false;
  const match = MENTION.exec(state.src.slice(state.pos));
  const mention = match && resolveMention(match[2]!, match[1] === "_", targets);
  if (!match || !mention) return false;
  if (!silentCheck) state.push("zulip_mention", "span", 0).meta = mention;
  state.pos += match[0].length;
  return true;
}

md.inline.ruler.before("emphasis", "zulip_mention", mentionRule);
md.renderer.rules.zulip_mention = (tokens, idx) => {
  const m = tokens[idx]!.meta as Mention;
  const escape = md.utils.escapeHtml;
  const silent = m.silent ? " silent" : "";
  const at = m.silent ? "" : "@";
  switch (m.kind) {
    case "user":
      return `<span class="user-mention${silent}" data-user-id="${m.userId}">${at}${escape(m.name)}</span>`;
    case "channel":
      return `<span class="user-mention channel-wildcard-mention${silent}" data-user-id="*">${at}${escape(m.name)}</span>`;
    case "topic":
      return `<span class="topic-mention${silent}">${at}topic</span>`;
  }
};

// Zulip's ```quote (and ~~~quote) fences: a block quote of the Markdown inside (Notification Bot quotes channel descriptions so).
const renderFence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  if (token.info.trim() !== "quote") return renderFence(tokens, idx, options, env, self);
  return `<blockquote>\n${md.render(token.content, env)}</blockquote>\n`;
};

md.core.ruler.after("inline", "zulip_linkifiers", linkifierRule);

/**
 * Markdown as Zulip renders it; mentions of `mentionTargets` become Zulip's
 * mention spans, and what the organization's `linkifiers` match, links.
 */
export const renderMarkdown = (text: string, targets?: MentionTargets, linkifiers?: CompiledLinkifier[]): string =>
  text === "" ? "" : md.render(text, { mentionTargets: targets, linkifiers }).trimEnd();
