import katex from "katex";
import type { MarkdownIt, StateCore, StateInline, Token } from "markdown-it";
import { renderEnv, type MentionTargets } from "./context";
import { escapeAttribute, escapeText } from "./escape";
import { encodeChannel, encodeHashComponent } from "./link-syntax";

const CHANNEL_WILDCARDS = new Set(["all", "everyone", "channel", "stream"]);

/** Zulip's mention syntax: @**Name**, @**Name|id**, @**|id**, silent @_**...**, and the wildcards. */
const USER_MENTION = /^@(_?)\*\*([^*\n]+?)\*\*/;
/** Zulip's USER_GROUP_MENTIONS_RE: @*group*, silent @_*group*. */
const GROUP_MENTION = /^@(_?)\*([^*\n]+)\*/;
/** Zulip renders mentions and channel links only after these (or at the start): not inside words or addresses. */
const MAY_FOLLOW = /[\s'"({[/<,:]/;

type Mention =
  | { kind: "user"; userId: number; name: string; silent: boolean }
  | { kind: "channel"; name: string; silent: boolean }
  | { kind: "topic"; silent: boolean }
  | { kind: "group"; groupId: number; name: string; silent: boolean };

/** Zulip's UserMentionPattern: the mention's target, or null to leave the text as it is. */
function resolveUserMention(text: string, silent: boolean, targets: MentionTargets): Mention | null {
  const withId = /^(.*)\|(\d+)$/.exec(text);
  if (withId) {
    const user = targets.byId.get(Number(withId[2]));
    // @**name|id** must name that user exactly
    if (!user || (withId[1] !== "" && withId[1] !== user.full_name)) return null;
    return { kind: "user", userId: user.user_id, name: user.full_name, silent: silent || user.is_active === false };
  }
  const key = text.toLowerCase();
  if (CHANNEL_WILDCARDS.has(key)) return { kind: "channel", name: text, silent };
  if (key === "topic") return { kind: "topic", silent };
  const named = targets.byName.get(key);
  if (named?.length !== 1) return null;
  const user = named[0]!;
  return { kind: "user", userId: user.user_id, name: user.full_name, silent: silent || user.is_active === false };
}

const followsBoundary = (state: StateInline): boolean => state.pos === 0 || MAY_FOLLOW.test(state.src[state.pos - 1]!);

function mentionRule(state: StateInline, silentCheck: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x40 /* @ */ || !followsBoundary(state)) return false;
  const env = renderEnv(state.env);
  const rest = state.src.slice(state.pos);
  let match = USER_MENTION.exec(rest);
  let mention: Mention | null = null;
  if (match) {
    mention = env.mentionTargets ? resolveUserMention(match[2]!, match[1] === "_", env.mentionTargets) : null;
  } else {
    match = GROUP_MENTION.exec(rest);
    const group = match && env.userGroups?.get(match[2]!.toLowerCase());
    // Zulip's UserGroupMentionPattern: a deactivated group's mention is silent
    if (group)
      mention = { kind: "group", groupId: group.id, name: group.name, silent: match![1] === "_" || group.deactivated };
  }
  if (!match || !mention) return false;
  if (!silentCheck) state.push("zulip_mention", "span", 0).meta = mention;
  state.pos += match[0].length;
  return true;
}

function renderMention(m: Mention): string {
  const silent = m.silent ? " silent" : "";
  const at = m.silent ? "" : "@";
  switch (m.kind) {
    case "user":
      return `<span class="user-mention${silent}" data-user-id="${m.userId}">${at}${escapeText(m.name)}</span>`;
    case "channel":
      return `<span class="user-mention channel-wildcard-mention${silent}" data-user-id="*">${at}${escapeText(m.name)}</span>`;
    case "topic":
      return `<span class="topic-mention${silent}">${at}topic</span>`;
    case "group":
      return `<span class="user-group-mention${silent}" data-user-group-id="${m.groupId}">${at}${escapeText(m.name)}</span>`;
  }
}

/**
 * Zulip's STREAM_LINK_REGEX, STREAM_TOPIC_LINK_REGEX and
 * STREAM_TOPIC_MESSAGE_LINK_REGEX: #**channel**, #**channel>topic** and
 * #**channel>topic@message id**.
 */
const CHANNEL_LINK = /^#\*\*([^*>]+)(?:>([^*]*?)(?:@(\d+))?)?\*\*/;

interface ChannelLink {
  streamId: number;
  channel: string;
  topic?: string;
  messageId?: string;
}

function channelLinkRule(state: StateInline, silentCheck: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x23 /* # */ || !followsBoundary(state)) return false;
  const match = CHANNEL_LINK.exec(state.src.slice(state.pos));
  const streamId = match && renderEnv(state.env).channels?.get(match[1]!);
  if (!match || streamId === undefined || streamId === null) return false;
  if (!silentCheck) {
    const link: ChannelLink = { streamId, channel: match[1]!, topic: match[2], messageId: match[3] };
    state.push("zulip_channel_link", "a", 0).meta = { link };
  }
  state.pos += match[0].length;
  return true;
}

/** Zulip's EMPTY_TOPIC_FALLBACK_NAME, shown in italics for the "" topic. */
const EMPTY_TOPIC_FALLBACK_NAME = "general chat";

/** Zulip's StreamPattern, StreamTopicPattern and StreamTopicMessagePattern. */
function renderChannelLink(link: ChannelLink): string {
  const channelPath = `/#narrow/channel/${encodeChannel(link.streamId, link.channel)}`;
  const channel = `#${escapeText(link.channel)}`;
  if (link.topic === undefined) {
    return `<a class="stream" data-stream-id="${link.streamId}" href="${escapeAttribute(channelPath)}">${channel}</a>`;
  }
  const topicPath = `${channelPath}/topic/${encodeHashComponent(link.topic)}`;
  const topic = link.topic === "" ? `<em>${EMPTY_TOPIC_FALLBACK_NAME}</em>` : escapeText(link.topic);
  if (link.messageId === undefined) {
    return `<a class="stream-topic" data-stream-id="${link.streamId}" href="${escapeAttribute(topicPath)}">${channel} &gt; ${topic}</a>`;
  }
  return `<a class="message-link" href="${escapeAttribute(`${topicPath}/near/${link.messageId}`)}">${channel} &gt; ${topic} @ 💬</a>`;
}

/** Zulip's timestamp syntax `<time:...>`. */
const TIME = /^<time:([^>]*?)>/;
/** Time zone abbreviations dateutil knows for the times people write (others are refused as Zulip refuses them). */
const TIME_ZONES: Record<string, string> = {
  UTC: "+00:00",
  GMT: "+00:00",
  Z: "+00:00",
  IST: "+05:30",
  EST: "-05:00",
  EDT: "-04:00",
  CST: "-06:00",
  CDT: "-05:00",
  MST: "-07:00",
  MDT: "-06:00",
  PST: "-08:00",
  PDT: "-07:00",
  CET: "+01:00",
  CEST: "+02:00",
  BST: "+01:00",
  JST: "+09:00",
};

/**
 * Zulip's Timestamp pattern (dateutil's parser): a Unix time, or a date and
 * time as people write them, read as UTC unless it names its time zone; null
 * when it is not a time.
 */
function parseTime(text: string): Date | null {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return new Date(Number(trimmed) * 1000);
  const iso = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(trimmed);
  if (iso) return validDate(Date.parse(`${iso[1]}T${iso[2] ?? "00:00"}${iso[3] ?? "Z"}`));
  let zone = "+0000";
  const normalized = trimmed
    // ordinals: 5th → 5
    .replace(/\b(\d{1,2})(st|nd|rd|th)\b/gi, "$1")
    .replace(/\b([A-Z]{1,4})$/, (abbreviation) => {
      const offset = TIME_ZONES[abbreviation];
      if (offset === undefined) return abbreviation;
      zone = offset.replace(":", "");
      return "";
    })
    .replace(/(\d)(am|pm)\b/gi, "$1 $2")
    .replace(/,/g, " ")
    .trim();
  if (!/\d/.test(normalized) || /[^\w\s:./+-]/.test(normalized)) return null;
  const hasTime = /\d:\d|\b(am|pm)\b/i.test(normalized);
  return validDate(Date.parse(`${normalized}${hasTime ? "" : " 00:00"} ${zone}`));
}

const validDate = (millis: number): Date | null => (Number.isNaN(millis) ? null : new Date(millis));

function timeRule(state: StateInline, silentCheck: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c /* < */) return false;
  const match = TIME.exec(state.src.slice(state.pos));
  if (!match) return false;
  if (!silentCheck) state.push("zulip_time", "time", 0).meta = { text: match[1]!, time: parseTime(match[1]!) };
  state.pos += match[0].length;
  return true;
}

function renderTime({ text, time }: { text: string; time: Date | null }): string {
  if (!time) return `<span class="timestamp-error">Invalid time format: ${escapeText(text)}</span>`;
  return `<time datetime="${time.toISOString().replace(/\.\d{3}Z$/, "Z")}">${escapeText(text)}</time>`;
}

/** Zulip's inline TeX: $$...$$ on one line, not next to more dollar signs, not starting with "_". */
const INLINE_MATH = /^\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)/;

function inlineMathRule(state: StateInline, silentCheck: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x24 /* $ */ || state.src[state.pos - 1] === "$") return false;
  const match = INLINE_MATH.exec(state.src.slice(state.pos));
  if (!match) return false;
  if (!silentCheck) state.push("zulip_math_inline", "span", 0).content = match[1]!;
  state.pos += match[0].length;
  return true;
}

/** KaTeX's rendering of TeX, or null when it is not valid TeX (Zulip then shows the source, marked tex-error). */
export function renderTex(tex: string, displayMode: boolean): string | null {
  try {
    return katex.renderToString(tex, { displayMode, throwOnError: true });
  } catch {
    return null;
  }
}

/** Zulip's STRIKETHROUGH_RE: ~~text~~ on one line, not next to more tildes. */
const STRIKETHROUGH = /^~~([^~\n]+?)~~(?!~)/;

function strikethroughRule(state: StateInline, silentCheck: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x7e /* ~ */ || state.src[state.pos - 1] === "~") return false;
  const match = STRIKETHROUGH.exec(state.src.slice(state.pos));
  if (!match) return false;
  if (!silentCheck) {
    const start = state.pos + 2;
    const end = start + match[1]!.length;
    state.push("del_open", "del", 1);
    const oldMax = state.posMax;
    state.pos = start;
    state.posMax = end;
    state.md.inline.tokenize(state);
    state.posMax = oldMax;
    state.push("del_close", "del", -1);
  }
  state.pos += silentCheck ? match[0].length : 2;
  return true;
}

/**
 * Python-Markdown's code spans, as Zulip keeps them: the text between runs of
 * as many backticks, its spaces kept (CommonMark strips one on each side).
 */
function backticksRule(state: StateInline, silentCheck: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x60 /* ` */ || state.src[state.pos - 1] === "\\") return false;
  let openEnd = state.pos;
  while (state.src.charCodeAt(openEnd) === 0x60) openEnd++;
  const fence = state.src.slice(state.pos, openEnd);
  const closing = new RegExp(`(?<!\`)${fence}(?!\`)`, "g");
  closing.lastIndex = openEnd;
  const close = closing.exec(state.src);
  if (!close || close.index === openEnd || close.index > state.posMax) {
    if (!silentCheck) state.pending += fence;
    state.pos = openEnd;
    return true;
  }
  if (!silentCheck) {
    const token = state.push("code_inline", "code", 0);
    token.markup = fence;
    token.content = state.src.slice(openEnd, close.index);
  }
  state.pos = close.index + fence.length;
  return true;
}

/** Zulip turns off underscore emphasis (`_x_`, `__x__`): underscores are text. */
function underscoreRule(state: StateInline, silentCheck: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x5f /* _ */) return false;
  let end = state.pos;
  while (state.src.charCodeAt(end) === 0x5f) end++;
  if (!silentCheck) state.pending += state.src.slice(state.pos, end);
  state.pos = end;
  return true;
}

/** Python-Markdown's nl2br, as Zulip uses it: every newline is a line break, the spaces around it kept. */
function newlineRule(state: StateInline, silentCheck: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x0a) return false;
  if (!silentCheck) state.push("hardbreak", "br", 0);
  state.pos++;
  return true;
}

const isLineBreak = (token: Token) => token.type === "hardbreak";

/**
 * Zulip's emphasis and strong emphasis do not span lines: a pair of `*`
 * delimiters with a line break between them stays text.
 */
function emphasisOnOneLine(state: StateInline): boolean {
  const unpair = (delimiters: typeof state.delimiters) => {
    for (const opener of delimiters) {
      if (opener.marker !== 0x2a || opener.end < 0) continue;
      const closer = delimiters[opener.end]!;
      if (state.tokens.slice(opener.token, closer.token).some(isLineBreak)) {
        opener.end = -1;
        closer.open = false;
      }
    }
  };
  unpair(state.delimiters);
  for (const meta of state.tokens_meta) if (meta?.delimiters) unpair(meta.delimiters);
  return false;
}

/**
 * Zulip's BlockQuoteProcessor.clean: mentions in quotes are silent (quoting a
 * message notifies nobody again); the others are noted as whom the message
 * notifies (Zulip's UserMentionPattern and UserGroupMentionPattern).
 */
function noteMentions(state: StateCore): void {
  const env = renderEnv(state.env);
  let quoteDepth = env.inQuote ? 1 : 0;
  for (const token of state.tokens) {
    if (token.type === "blockquote_open") quoteDepth++;
    if (token.type === "blockquote_close") quoteDepth--;
    for (const child of token.children ?? []) {
      if (child.type !== "zulip_mention") continue;
      const mention = child.meta as Mention;
      if (quoteDepth > 0) mention.silent = true;
      if (mention.silent) continue;
      if (mention.kind === "user") env.mentions.userIds.add(mention.userId);
      else if (mention.kind === "group") env.mentions.groupIds.add(mention.groupId);
      else if (mention.kind === "channel") env.mentions.streamWildcard = true;
      else env.mentions.topicWildcard = true;
    }
  }
}

/** Python-Markdown nests `***x***` as strong around emphasis (markdown-it as emphasis around strong). */
function strongOutsideEmphasis(state: StateCore): void {
  for (const block of state.tokens) {
    if (!block.children) continue;
    // the delimiters markdown-it turned into tags leave empty texts between them
    const children = (block.children = block.children.filter((t) => t.type !== "text" || t.content !== ""));
    for (let i = 0; i + 1 < children.length; i++) {
      const [a, b] = [children[i]!, children[i + 1]!];
      const opens = a.type === "em_open" && b.type === "strong_open";
      const closes = a.type === "strong_close" && b.type === "em_close";
      if (opens || closes) [children[i], children[i + 1]] = [b, a];
    }
  }
}

/** Zulip's inline syntax on top of markdown-it's: mentions, channel links, times, TeX, strikethrough, and Zulip's refusals. */
export function useZulipInline(md: MarkdownIt): void {
  md.inline.ruler.at("newline", newlineRule);
  md.inline.ruler.at("backticks", backticksRule);
  md.inline.ruler.before("emphasis", "zulip_underscore", underscoreRule);
  md.inline.ruler.before("emphasis", "zulip_mention", mentionRule);
  md.inline.ruler.before("emphasis", "zulip_channel_link", channelLinkRule);
  md.inline.ruler.before("emphasis", "zulip_math_inline", inlineMathRule);
  md.inline.ruler.at("strikethrough", strikethroughRule);
  md.inline.ruler.before("html_inline", "zulip_time", timeRule);
  md.inline.ruler2.before("emphasis", "zulip_emphasis_one_line", emphasisOnOneLine);

  md.renderer.rules.zulip_mention = (tokens, idx) => renderMention(tokens[idx]!.meta as Mention);
  md.renderer.rules.zulip_channel_link = (tokens, idx) =>
    renderChannelLink((tokens[idx]!.meta as { link: ChannelLink }).link);
  md.renderer.rules.zulip_time = (tokens, idx) => renderTime(tokens[idx]!.meta as { text: string; time: Date | null });
  md.renderer.rules.zulip_math_inline = (tokens, idx) => {
    const tex = tokens[idx]!.content;
    return renderTex(tex, false) ?? `<span class="tex-error">$$${escapeText(tex)}$$</span>`;
  };
  md.renderer.rules.text = (tokens, idx) => escapeText(tokens[idx]!.content);
  md.renderer.rules.code_inline = (tokens, idx) => `<code>${escapeText(tokens[idx]!.content)}</code>`;
  md.core.ruler.push("zulip_strong_outside_emphasis", strongOutsideEmphasis);
  md.core.ruler.push("zulip_mentions", noteMentions);
}
