import MarkdownIt from "markdown-it";
import { EMPTY_QUOTE_LINE, useZulipBlocks } from "./blocks";
import type { RenderContext, RenderEnv, RenderedMentions } from "./context";
import { useZulipEmoji } from "./emoji";
import { useZulipInline } from "./inline";
import { linkEmbeds } from "./link-embeds";
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
md.core.ruler.push("zulip_link_embeds", linkEmbeds);

const LIST_ITEM = /^( *)([*+-]|\d+[.)])( +)(.*)$/;
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})/;
/** Fences whose content is Markdown: lists in them are lists. */
const QUOTE_FENCE = /^ {0,3}(`{3,}|~{3,}) *(quote|quoted|spoiler)\b/;

/**
 * Zulip's (Python-Markdown's) block structure, given to markdown-it as
 * CommonMark: a list item indented past its parent item's marker is nested
 * in it (Zulip's lists nest by two spaces), `*`, `-` and `+` items make one
 * list, an item's continuation lines keep their indentation, and a quote of
 * empty `>` lines takes in the line after it. Code blocks and fenced code are
 * left as they are.
 */
function zulipBlockSyntax(text: string): string {
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
      const blank = line.trim() === "";
      const previous = out[out.length - 1];
      // Python-Markdown goes on with a quote of only empty `>` lines into the next line
      if (!blank && previous !== undefined && EMPTY_QUOTE_LINE.test(previous) && !/^ {0,3}>/.test(line)) {
        out.push(`> ${line}`);
        continue;
      }
      if (!blank && !/^ /.test(line)) parents = [];
      const parent = parents[parents.length - 1];
      if (!parent || blank) {
        out.push(line);
        continue;
      }
      if (previous === undefined || previous.trim() === "") {
        out.push(" ".repeat(parent.shift) + line);
        continue;
      }
      // a line going on with an item's text keeps, as text, what Python-Markdown's
      // four-column unindenting leaves of its indentation
      const indent = line.length - line.trimStart().length;
      out.push(" ".repeat(parent.contentIndent + (indent % 4)) + line.trimStart());
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
): { html: string; mentions: RenderedMentions; linksForPreview: string[] } {
  const env: RenderEnv = {
    ...context,
    previewed: new Set(),
    mentions: { userIds: new Set(), groupIds: new Set(), streamWildcard: false, topicWildcard: false },
    linksForPreview: [],
  };
  const html = text === "" ? "" : md.render(zulipBlockSyntax(text), env).trimEnd();
  return { html, mentions: env.mentions, linksForPreview: env.linksForPreview };
}

/** Markdown as Zulip renders it (descriptions, profile fields: what notifies nobody). */
export const renderMarkdown = (text: string, context: RenderContext = {}): string =>
  renderWithMentions(text, context).html;
