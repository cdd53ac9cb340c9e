import type { StateCore, Token } from "markdown-it";
import type { RealmLinkifier } from "../contracts/realm-config/linkifiers";
import { compilePattern, expandUriTemplate, parseUriTemplate } from "../domain/linkifiers";
import { renderEnv, type CompiledLinkifier } from "./context";
import { sanitizeUrl } from "./urls";
import { webLinkAtStart } from "./web-links";

/**
 * Zulip's prepare_linkifier_pattern: a match starts at the start, after
 * whitespace or one of '"(,:< and is not followed by a letter or digit; only
 * `linkifier_actual_match` becomes the link.
 */
const withBoundaries = (source: string) =>
  `(?<linkifier_before_match>^|\\s|\\u0085|\\p{Z}|['"(,:<])(?<linkifier_actual_match>${source})(?<linkifier_after_match>$|[^\\p{L}\\p{N}])`;

/**
 * The organization's linkifiers, in order, ready to run. One that cannot be
 * compiled (saved before a rule changed) matches nothing, as Zulip's
 * LinkifierPattern falls back to a pattern that never matches.
 */
export function compileLinkifiers(linkifiers: RealmLinkifier[]): CompiledLinkifier[] {
  return linkifiers.flatMap(({ pattern, url_template }) => {
    const template = parseUriTemplate(url_template);
    try {
      return template ? [{ regex: compilePattern(pattern, withBoundaries).regex, template }] : [];
    } catch {
      return [];
    }
  });
}

type Piece = string | { text: string; href: string };

/**
 * Applies one linkifier to the text pieces left by the ones before it. `before`
 * is what Zulip's pattern sees ahead of the first piece: "" at the start of a
 * block or an emphasis, "\n" after a line break, a placeholder otherwise (after
 * code, a link, a mention: not an allowed boundary, as Python-Markdown's
 * placeholders are not); a link made by an earlier linkifier is such a placeholder too.
 */
function applyLinkifier(pieces: Piece[], linkifier: CompiledLinkifier, before: string): Piece[] {
  return pieces.flatMap((piece, index) => {
    if (typeof piece !== "string") return [piece];
    const prefix = index === 0 ? before : PLACEHOLDER;
    const text = prefix + piece;
    const out: Piece[] = [];
    let done = prefix.length;
    linkifier.regex.lastIndex = 0;
    for (let m = linkifier.regex.exec(text); m; m = linkifier.regex.exec(text)) {
      const groups = m.groups!;
      const start = m.index + groups.linkifier_before_match!.length;
      const end = start + groups.linkifier_actual_match!.length;
      const href = sanitizeUrl(expandUriTemplate(linkifier.template, groups));
      if (href !== null && end > start) {
        if (start > done) out.push(text.slice(done, start));
        out.push({ text: text.slice(start, end), href });
        done = end;
      }
      // the character after the match may start the next one (Zulip's InlineProcessor goes on from the match's end)
      linkifier.regex.lastIndex = Math.max(end, m.index + 1);
    }
    if (done < text.length) out.push(text.slice(done));
    return out;
  });
}

const PLACEHOLDER = "\u0003";

/** What Zulip's pattern sees ahead of a text token, from the token before it (see applyLinkifier). */
function boundaryBefore(previous: Token | undefined): string {
  if (!previous || previous.type.endsWith("_open")) return "";
  if (previous.type === "softbreak" || previous.type === "hardbreak") return "\n";
  return PLACEHOLDER;
}

/**
 * markdown-it core rule, after inline parsing and before the bare-URL links:
 * every text token outside links (code, mentions and links are other tokens)
 * is linkified by each of the organization's linkifiers in turn, as Zulip's
 * LinkifierPattern makes `<a href="...">text</a>`.
 */
export function linkifierRule(state: StateCore): void {
  const linkifiers = renderEnv(state.env).linkifiers;
  if (!linkifiers?.length) return;
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    let linkDepth = 0;
    block.children = block.children.flatMap((token, index, children) => {
      if (token.type === "link_open") linkDepth++;
      if (token.type === "link_close") linkDepth--;
      if (token.type !== "text" || linkDepth > 0) return [token];
      const before = boundaryBefore(children[index - 1]);
      let pieces: Piece[] = [token.content];
      for (const linkifier of linkifiers) pieces = applyLinkifier(pieces, linkifier, before);
      if (pieces.length === 1 && typeof pieces[0] === "string") return [token];
      return pieces.flatMap((piece) => {
        const text = new state.Token("text", "", 0);
        text.level = token.level;
        if (typeof piece === "string") {
          text.content = piece;
          return [text];
        }
        text.content = piece.text;
        text.level = token.level + 1;
        const open = new state.Token("link_open", "a", 1);
        open.attrs = [["href", piece.href]];
        open.level = token.level;
        const close = new state.Token("link_close", "a", -1);
        close.level = token.level;
        return [open, text, close];
      });
    });
  }
}

/** Zulip's basic_link_splitter: what ends a raw URL in a topic. */
const LINK_SPLITTER = /[ !;),'"]/g;

interface TopicLinkMatch {
  text: string;
  url: string;
  index: number;
}

const overlapping = (a: TopicLinkMatch, b: TopicLinkMatch) =>
  (b.index <= a.index && a.index < b.index + b.text.length) ||
  (a.index <= b.index && b.index < a.index + a.text.length);

/**
 * Zulip's topic_links: what the organization's linkifiers match in a topic
 * (earlier linkifiers first, then by position), then its raw URLs, keeping
 * only matches that overlap none kept before, in the topic's order.
 */
export function topicLinks(topic: string, linkifiers: CompiledLinkifier[]): Array<{ text: string; url: string }> {
  const matches: TopicLinkMatch[] = [];
  for (const linkifier of linkifiers) {
    linkifier.regex.lastIndex = 0;
    for (let m = linkifier.regex.exec(topic); m; m = linkifier.regex.exec(topic)) {
      const groups = m.groups!;
      matches.push({
        text: groups.linkifier_actual_match!,
        url: expandUriTemplate(linkifier.template, groups),
        index: m.index,
      });
      // the character after the match may begin the next one
      linkifier.regex.lastIndex = Math.max(m.index + m[0].length - groups.linkifier_after_match!.length, m.index + 1);
    }
  }
  let start = 0;
  for (const end of [...[...topic.matchAll(LINK_SPLITTER)].map((s) => s.index), topic.length]) {
    const url = webLinkAtStart(topic.slice(start, end));
    // a bare domain links to its https:// address
    if (url) matches.push({ text: url, url: /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `https://${url}`, index: start });
    start = end + 1;
  }
  const applied: TopicLinkMatch[] = [];
  for (const match of matches) if (applied.every((kept) => !overlapping(kept, match))) applied.push(match);
  return applied.sort((a, b) => a.index - b.index).map(({ text, url }) => ({ url, text }));
}
