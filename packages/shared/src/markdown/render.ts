import MarkdownIt from "markdown-it";
import { useZulipBlocks } from "./blocks";
import type { RenderContext, RenderEnv, RenderedMentions } from "./context";
import { useZulipEmoji } from "./emoji";
import { useZulipInline } from "./inline";
import { linkifierRule } from "./linkifiers";
import { sanitizeUrl } from "./urls";
import { webLinkRule } from "./web-links";

/**
 * Zulip-flavored Markdown (zerver/lib/markdown): raw HTML is escaped, every
 * newline is a line break; bare URLs become links by Zulip's own rule
 * (web-links.ts), not markdown-it's.
 */
const md = new MarkdownIt({ html: false, linkify: false, breaks: true });
// Zulip has no reference-style links, `<url>` autolinks or `![]()` images (an image is shown by its preview, from the server)
md.disable(["reference", "autolink", "image"]);

/** A link destination Zulip refuses: the link's text then stays text. */
const REFUSED = "\u0000refused";
md.normalizeLink = (url) => sanitizeUrl(url) ?? REFUSED;
md.validateLink = (url) => url !== REFUSED;

useZulipInline(md);
md.core.ruler.after("inline", "zulip_linkifiers", linkifierRule);
md.core.ruler.push("zulip_web_links", webLinkRule);
useZulipEmoji(md);
useZulipBlocks(md);

const LIST_ITEM = /^( *)([*+-]|\d+[.)])( +)(.*)$/;
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})/;
/** Fences whose content is Markdown: lists in them are lists. */
const QUOTE_FENCE = /^ {0,3}(`{3,}|~{3,}) *(quote|quoted|spoiler)\b/;

/**
 * Zulip's list syntax, given to markdown-it as CommonMark: a list item
 * indented past its parent item's marker is nested in it (Zulip's lists nest
 * by two spaces) and `*`, `-` and `+` items make one list.
 * Code blocks and fenced code are left as they are.
 */
function zulipListSyntax(text: string): string {
  const out: string[] = [];
  let parents: Array<{ indent: number; contentIndent: number; shift: number }> = [];
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    if (fence !== null) {
      if (line.trim() === fence) fence = null;
      out.push(line);
      continue;
    }
    const fenceLine = FENCE_LINE.exec(line);
    if (fenceLine && !QUOTE_FENCE.test(line)) {
      fence = fenceLine[1]!;
      out.push(line);
      continue;
    }
    const item = fenceLine ? null : LIST_ITEM.exec(line);
    if (!item || /^( *[*+-] *){3,}$/.test(line)) {
      if (line.trim() !== "" && !/^ /.test(line)) parents = [];
      const shift = parents.length > 0 && line.trim() !== "" ? parents[parents.length - 1]!.shift : 0;
      out.push(shift > 0 ? " ".repeat(shift) + line : line);
      continue;
    }
    const indent = item[1]!.length;
    while (parents.length > 0 && parents[parents.length - 1]!.indent >= indent) parents.pop();
    const parent = parents[parents.length - 1];
    if (!parent && indent >= 4) {
      out.push(line); // an indented code block
      continue;
    }
    const newIndent = parent ? Math.max(indent + parent.shift, parent.contentIndent) : indent;
    const marker = /^[*+-]$/.test(item[2]!) ? "*" : item[2]!;
    const rewritten = `${" ".repeat(newIndent)}${marker}${item[3]}${item[4]}`;
    out.push(rewritten);
    parents.push({ indent, contentIndent: newIndent + marker.length + item[3]!.length, shift: newIndent - indent });
  }
  return out.join("\n");
}

/**
 * Markdown as Zulip renders it, with what the context gives (mentions,
 * channel links, custom emoji, the organization's linkifiers), and whom it
 * notifies.
 */
export function renderWithMentions(
  text: string,
  context: RenderContext = {},
): { html: string; mentions: RenderedMentions } {
  const env: RenderEnv = {
    ...context,
    previewed: new Set(),
    mentions: { userIds: new Set(), groupIds: new Set(), wildcard: false },
  };
  const html = text === "" ? "" : md.render(zulipListSyntax(text), env).trimEnd();
  return { html, mentions: env.mentions };
}

/** Markdown as Zulip renders it (descriptions, profile fields: what notifies nobody). */
export const renderMarkdown = (text: string, context: RenderContext = {}): string =>
  renderWithMentions(text, context).html;
