import type { MarkdownIt, StateBlock, StateCore, Token } from "markdown-it";
import { renderEnv, type RenderEnv } from "./context";
import { escapeAttribute, escapeHtml } from "./escape";
import { renderTex } from "./inline";
import { isImageUrl, realmRelativeUrl, thumbnailUrl } from "./urls";

/**
 * Zulip's FENCE_RE: ``` or ~~~ (three or more), then optionally a language
 * (`.py` and `{python}` spellings too) and, for the fences that take one (a
 * spoiler's), a header; anything else on the line is not a fence.
 */
const FENCE = /^(`{3,}|~{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+\-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?$/;
/** The fences whose content is Markdown, in which fences open and close as in the message itself. */
const MARKDOWN_FENCES = new Set(["quote", "quoted", "spoiler"]);

/**
 * Zulip's fenced blocks (fenced_code.py): a fence is closed only by a line that
 * is exactly its opening fence, and fences opened inside a quote or spoiler
 * are closed before it is; a fence never closed runs to the end of the message.
 */
function fenceRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const lineOf = (line: number) =>
    state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]!).replace(/\s+$/, "");
  const opening = FENCE.exec(lineOf(startLine));
  if (!opening) return false;
  if (silent) return true;
  const lang = opening[2]?.toLowerCase() ?? "";
  const open: Array<{ fence: string; markdown: boolean }> = [
    { fence: opening[1]!, markdown: MARKDOWN_FENCES.has(lang) },
  ];
  let nextLine = startLine;
  while (++nextLine < endLine) {
    if (
      state.sCount[nextLine]! < state.blkIndent &&
      state.bMarks[nextLine]! + state.tShift[nextLine]! < state.eMarks[nextLine]!
    )
      break;
    const line = lineOf(nextLine);
    const innermost = open[open.length - 1]!;
    if (line === innermost.fence) {
      open.pop();
      if (open.length === 0) break;
      continue;
    }
    const nested = innermost.markdown ? FENCE.exec(line) : null;
    if (nested) open.push({ fence: nested[1]!, markdown: MARKDOWN_FENCES.has(nested[2]?.toLowerCase() ?? "") });
  }
  const closed = open.length === 0;
  const token = state.push("fence", "code", 0);
  token.info = lang;
  token.meta = { header: opening[3]?.trim() ?? "" };
  token.content = state.getLines(startLine + 1, nextLine, state.sCount[startLine]!, true);
  token.markup = opening[1]!;
  state.line = nextLine + (closed ? 1 : 0);
  token.map = [startLine, state.line];
  return true;
}

/** Pygments' names of the languages people name most (Zulip shows a code block's language by its lexer's name). */
const LANGUAGE_NAMES: Record<string, string> = {
  python: "Python",
  py: "Python",
  python3: "Python",
  py3: "Python",
  sage: "Python",
  bazel: "Python",
  starlark: "Python",
  python2: "Python 2.x",
  py2: "Python 2.x",
  javascript: "JavaScript",
  js: "JavaScript",
  typescript: "TypeScript",
  ts: "TypeScript",
  tex: "TeX",
  latex: "TeX",
  java: "Java",
  c: "C",
  cpp: "C++",
  "c++": "C++",
  csharp: "C#",
  "c#": "C#",
  go: "Go",
  golang: "Go",
  rust: "Rust",
  rs: "Rust",
  ruby: "Ruby",
  rb: "Ruby",
  bash: "Bash",
  sh: "Bash",
  shell: "Bash",
  zsh: "Bash",
  console: "Bash Session",
  json: "JSON",
  yaml: "YAML",
  yml: "YAML",
  html: "HTML",
  css: "CSS",
  sql: "SQL",
  xml: "XML",
  markdown: "Markdown",
  md: "Markdown",
  diff: "Diff",
  udiff: "Diff",
  php: "PHP",
  kotlin: "Kotlin",
  swift: "Swift",
  haskell: "Haskell",
  hs: "Haskell",
  scala: "Scala",
  perl: "Perl",
  pl: "Perl",
  lua: "Lua",
  dockerfile: "Docker",
  docker: "Docker",
  ini: "INI",
  toml: "TOML",
  makefile: "Makefile",
  make: "Makefile",
  powershell: "PowerShell",
  elixir: "Elixir",
  erlang: "Erlang",
  clojure: "Clojure",
  dart: "Dart",
  text: "Text only",
};

/** Pygments' HTML escaping: quotes too. */
const escapeCode = (text: string): string =>
  text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");

/**
 * Zulip's code block markup (codehilite), with the language named as Pygments
 * names it (an unknown one as written). Lines lose their trailing whitespace
 * and the block its leading and trailing blank lines, as Pygments does.
 */
function codeBlock(code: string, lang: string): string {
  const lines = code.split("\n").map((line) => line.replace(/\s+$/, ""));
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const language = lang === "" ? "" : ` data-code-language="${escapeAttribute(LANGUAGE_NAMES[lang] ?? lang)}"`;
  const body = lines.map((line) => `${line}\n`).join("");
  return `<div class="codehilite"${language}><pre><span></span><code>${escapeCode(body)}</code></pre></div>\n`;
}

/** Zulip's fenced blocks: code, quotes, spoilers and display math. */
function renderFence(md: MarkdownIt, token: Token, env: RenderEnv): string {
  const lang = token.info;
  const content = token.content;
  if (lang === "quote" || lang === "quoted")
    return `<blockquote>\n${md.render(content, { ...env, inQuote: true })}</blockquote>\n`;
  if (lang === "spoiler") {
    const header = (token.meta as { header: string }).header;
    return `<div class="spoiler-block"><div class="spoiler-header">\n${header === "" ? "" : md.render(header, env)}</div><div class="spoiler-content" aria-hidden="true">\n${md.render(content, env)}</div></div>\n`;
  }
  if (lang === "math") {
    const tex = content.replace(/\n$/, "");
    return `<p>${renderTex(tex, true) ?? `<span class="tex-error">${escapeHtml(tex)}</span>`}</p>\n`;
  }
  return codeBlock(content, lang === "" ? (env.defaultCodeBlockLanguage ?? "") : lang);
}

/** Python-Markdown's paragraphs, as Zulip renders them, keep their trailing spaces (markdown-it trims them). */
function keepTrailingSpaces(state: StateCore): void {
  const lines = state.src.split("\n");
  for (const [i, token] of state.tokens.entries()) {
    if (token.type !== "paragraph_open" || !token.map) continue;
    const inline = state.tokens[i + 1]!;
    const last = lines[token.map[1] - 1] ?? "";
    const trailing = /[ \t]*$/.exec(last)![0];
    if (trailing !== "" && last.trimEnd().endsWith(inline.content.split("\n").pop()!)) inline.content += trailing;
  }
}

/** Zulip's inline image preview of an outside image: shown from the server's own /thumbnail path. */
function imagePreview(url: string, title: string | undefined): string {
  const titled = title === undefined ? "" : ` title="${escapeAttribute(title)}"`;
  return `<div class="message_inline_image"><a href="${escapeAttribute(url)}"${titled}><img data-src-fullsize="${escapeAttribute(thumbnailUrl(url, "full"))}" src="${escapeAttribute(thumbnailUrl(url, "thumbnail"))}"></a></div>`;
}

/** The image links of a paragraph's inline content, each with the title Zulip gives its preview (the link's text, unless it is the URL). */
function imageLinks(inline: Token): Array<{ url: string; title: string | undefined }> {
  const children = inline.children ?? [];
  return children.flatMap((token, i) => {
    if (token.type !== "link_open") return [];
    const url = String(token.attrGet("href") ?? "");
    if (!isImageUrl(url)) return [];
    const text = children[i + 1]?.type === "text" ? children[i + 1]!.content : "";
    return [{ url, title: token.markup === "linkify" || text === url ? undefined : text }];
  });
}

/**
 * Zulip's InlineInterestingLinkProcessor for images: each outside image linked
 * in a message (outside quotes) gets one preview, after its paragraph or at the
 * end of its list item; a paragraph that is only the image's URL is replaced by
 * the preview.
 */
function imagePreviews(state: StateCore): void {
  const env = renderEnv(state.env);
  if (env.inQuote || !env.imagePreviews) return;
  const out: Token[] = [];
  let quoteDepth = 0;
  for (let i = 0; i < state.tokens.length; i++) {
    const token = state.tokens[i]!;
    if (token.type === "blockquote_open") quoteDepth++;
    if (token.type === "blockquote_close") quoteDepth--;
    out.push(token);
    if (token.type !== "inline" || quoteDepth > 0 || state.tokens[i - 1]?.type !== "paragraph_open") continue;
    const previews = imageLinks(token)
      .filter(({ url }) => !env.previewed.has(url) && env.previewed.add(url))
      .map(({ url, title }) => imagePreview(url, title));
    if (previews.length === 0) continue;
    const html = new state.Token(state.tokens[i - 1]!.hidden ? "html_inline" : "html_block", "", 0);
    html.content = previews.join("");
    if (html.type === "html_inline") {
      token.children!.push(html);
      continue;
    }
    const children = token.children ?? [];
    const onlyTheUrl =
      children.length === 3 &&
      children[0]!.markup === "linkify" &&
      children[1]!.content === String(children[0]!.attrGet("href"));
    out.push(state.tokens[++i]!); // paragraph_close
    if (onlyTheUrl) out.splice(out.length - 3, 3);
    out.push(html);
  }
  state.tokens = out;
}

/**
 * Zulip's links: a link without text shows its URL, and links into the
 * organization's own web app become in-app links.
 */
function zulipLinks(state: StateCore): void {
  const env = renderEnv(state.env);
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    const children = block.children;
    for (let i = 0; i < children.length; i++) {
      const token = children[i]!;
      if (token.type !== "link_open") continue;
      const href = String(token.attrGet("href") ?? "");
      let close = i + 1;
      while (children[close] && children[close]!.type !== "link_close") close++;
      const text = children.slice(i + 1, close);
      if (text.every((t) => t.type === "text" && t.content.trim() === "")) {
        const url = new state.Token("text", "", 0);
        url.content = href;
        children.splice(i + 1, close - i - 1, url);
      }
      token.attrSet("href", realmRelativeUrl(href, env.realmUrl));
    }
  }
}

/** Python-Markdown puts a nested list right after its item's text, with no line break between. */
function listOpen(): NonNullable<MarkdownIt["renderer"]["rules"]["bullet_list_open"]> {
  return (tokens, idx, options, _env, self) => {
    const html = self.renderToken(tokens, idx, options);
    return tokens[idx - 1]?.hidden ? html.replace(/^\n/, "") : html;
  };
}

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/** markdown-it's own rule of that name (its rulers do not hand them out otherwise). */
function builtInBlockRule(md: MarkdownIt, name: string): BlockRule {
  const rules = (md.block.ruler as unknown as { __rules__: Array<{ name: string; fn: BlockRule }> }).__rules__;
  return rules.find((rule) => rule.name === name)!.fn;
}

/** Zulip's lists may start right after a paragraph's line whatever their first number (CommonMark's ordered lists only at 1). */
function anyListEndsParagraph(list: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    if (!silent || state.parentType !== "paragraph") return list(state, startLine, endLine, silent);
    state.parentType = "list";
    try {
      return list(state, startLine, endLine, silent);
    } finally {
      state.parentType = "paragraph";
    }
  };
}

export const EMPTY_QUOTE_LINE = /^ {0,3}>\s*$/;

/** Zulip's BlockQuoteProcessor: a quote whose lines (up to a blank line) are all empty is no quote, only text. */
function noEmptyQuote(blockquote: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    let line = startLine;
    const text = (l: number) => state.src.slice(state.bMarks[l]! + state.tShift[l]!, state.eMarks[l]!);
    while (line < endLine && text(line) !== "" && EMPTY_QUOTE_LINE.test(text(line))) line++;
    if (line === endLine || text(line) === "") return false;
    return blockquote(state, startLine, endLine, silent);
  };
}

export function useZulipBlocks(md: MarkdownIt): void {
  md.block.ruler.at("list", anyListEndsParagraph(builtInBlockRule(md, "list")), {
    alt: ["paragraph", "reference", "blockquote"],
  });
  md.block.ruler.at("blockquote", noEmptyQuote(builtInBlockRule(md, "blockquote")), {
    alt: ["paragraph", "reference", "blockquote", "list"],
  });
  md.block.ruler.at("fence", fenceRule, { alt: ["paragraph", "reference", "blockquote", "list"] });
  md.renderer.rules.fence = (tokens, idx, _options, env) => renderFence(md, tokens[idx]!, renderEnv(env));
  md.renderer.rules.code_block = (tokens, idx) => codeBlock(tokens[idx]!.content, "");
  md.renderer.rules.bullet_list_open = listOpen();
  md.renderer.rules.ordered_list_open = listOpen();
  md.core.ruler.after("block", "zulip_paragraph_spaces", keepTrailingSpaces);
  md.core.ruler.push("zulip_links", zulipLinks);
  md.core.ruler.push("zulip_image_previews", imagePreviews);
}
