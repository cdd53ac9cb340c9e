import type { StateCore, Token } from "markdown-it";
import tlds from "tlds";
import { renderEnv, type RenderEnv } from "./context";
import { splitText } from "./split-text";
import { realmRelativeUrl, sanitizeUrl } from "./urls";

/** Zulip's list_of_tlds: the IANA top-level domains less the ones more often file extensions, longest first. */
const TLDS = tlds
  .filter((tld) => !["java", "md", "mov", "py", "zip"].includes(tld))
  .sort((a, b) => b.length - a.length)
  .map((tld) => tld.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&"));

/** Up to six levels of parentheses paired inside a URL's path (Zulip's nested_paren_chunk). */
function nestedParenChunk(): string {
  const parenGroup = `[^\\s()"]*?(?:\\(%s\\)[^\\s()"]*?)*`;
  let chunk = parenGroup;
  for (let i = 0; i < 6; i++) chunk = chunk.replace("%s", parenGroup);
  return chunk.replace("%s", `[^\\s()"]*`);
}

const WORD = "[\\p{L}\\p{N}\\p{M}_]";

/**
 * Zulip's get_web_link_regex: a URL with a scheme, a domain with a known
 * top-level domain (and a path), an e-mail address or a bitcoin address,
 * after whitespace or one of '"(,:< and followed by punctuation and
 * whitespace or the end.
 */
const WEB_LINK = new RegExp(
  `(?<![^\\s'"(,:<])(?<url>(?:(?:https?://[${WORD.slice(1, -1)}.:@-]+?|(?:[${WORD.slice(1, -1)}-]+\\.)+(?:${TLDS.join("|")}))(?:/${nestedParenChunk()})?)|(?:[${WORD.slice(1, -1)}.-]+@[${WORD.slice(1, -1)}.-]+\\.${WORD}+)|(?:bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34}))(?=[!:;?),.'">]*(?:$|\\s))`,
  "gu",
);

/** Zulip's web link regex matched at the start of a text (topic_links' raw URLs): the URL, if one starts it. */
export function webLinkAtStart(text: string): string | undefined {
  WEB_LINK.lastIndex = 0;
  const match = WEB_LINK.exec(text);
  return match?.index === 0 ? match.groups!.url : undefined;
}

/** Splits a text token at its web links (Zulip's AutoLink pattern: url_to_a, its text the URL as written). */
function splitWebLinks(token: Token, state: StateCore, env: RenderEnv): Token[] {
  return splitText(token, state, WEB_LINK, (m) => {
    const url = m.groups!.url!;
    const href = sanitizeUrl(url);
    if (href === null) return null;
    const open = new state.Token("link_open", "a", 1);
    open.attrs = [["href", realmRelativeUrl(href, env.realmUrl)]];
    open.markup = "linkify";
    open.level = token.level;
    const close = new state.Token("link_close", "a", -1);
    close.markup = "linkify";
    close.level = token.level;
    const label = new state.Token("text", "", 0);
    label.content = url;
    label.level = token.level + 1;
    return { tokens: [open, label, close], end: m.index + url.length };
  });
}

/** markdown-it core rule: the web links in every text outside links and code. */
export function webLinkRule(state: StateCore): void {
  const env = renderEnv(state.env);
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    let linkDepth = 0;
    block.children = block.children.flatMap((token) => {
      if (token.type === "link_open") linkDepth++;
      if (token.type === "link_close") linkDepth--;
      return token.type === "text" && linkDepth === 0 ? splitWebLinks(token, state, env) : [token];
    });
  }
}
