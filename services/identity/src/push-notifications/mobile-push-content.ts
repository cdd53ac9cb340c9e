/**
 * The plain text a push notification shows for a rendered message (Zulip's
 * get_mobile_push_content in zerver/lib/push_notifications.py): emoji as
 * their characters, images as their alt text, block quotes prefixed with
 * "> ", ordered lists numbered, spoilers as their header and "(…)", and a
 * reply's quotes collapsed to "[…]" when the message has text of its own.
 */
export function mobilePushContent(renderedContent: string): string {
  const root = parseFragment(renderedContent);
  collapseQuotes(root);
  return plainText(root);
}

/** Zulip's truncate_content: at most 200 characters, then an ellipsis. */
export function truncateContent(content: string): string {
  const chars = [...content];
  return chars.length <= 200 ? content : `${chars.slice(0, 200).join("")}…`;
}

interface Element {
  tag: string;
  attrs: Record<string, string>;
  /** text before the first child, as lxml's .text */
  text: string;
  /** text after the closing tag, as lxml's .tail */
  tail: string;
  children: Element[];
}

const VOID_TAGS = new Set(["area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"]);
const TOKEN =
  /<!--[\s\S]*?-->|<\/?([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s/>=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>/g;
const ATTR = /([^\s/>=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

/** The fragment as lxml's fragment_fromstring(create_parent=True) gives it, for the markup Zulip's renderer makes. */
function parseFragment(html: string): Element {
  const root: Element = { tag: "div", attrs: {}, text: "", tail: "", children: [] };
  const stack: Element[] = [root];
  let last: Element | null = null; // the element whose tail the next text extends, when its parent is current
  let at = 0;
  const addText = (raw: string) => {
    const text = decodeEntities(raw);
    const current = stack[stack.length - 1]!;
    if (last) last.tail += text;
    else current.text += text;
  };
  for (const match of html.matchAll(TOKEN)) {
    addText(html.slice(at, match.index));
    at = match.index + match[0].length;
    const tag = match[1]?.toLowerCase();
    if (!tag) continue; // a comment
    if (match[0].startsWith("</")) {
      let open = stack.length - 1;
      while (open > 0 && stack[open]!.tag !== tag) open--;
      if (open > 0) {
        last = stack[open]!;
        stack.length = open;
      }
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of (match[2] ?? "").matchAll(ATTR))
      attrs[a[1]!.toLowerCase()] = decodeEntities(a[2] ?? a[3] ?? a[4] ?? "");
    const element: Element = { tag, attrs, text: "", tail: "", children: [] };
    stack[stack.length - 1]!.children.push(element);
    if (VOID_TAGS.has(tag) || match[3] === "/") {
      last = element;
    } else {
      stack.push(element);
      last = null;
    }
  }
  addText(html.slice(at));
  return root;
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith("#x")) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return named[name] ?? whole;
  });
}

const classes = (e: Element): string[] => (e.attrs.class ?? "").split(/\s+/).filter(Boolean);

function textContent(e: Element): string {
  return e.text + e.children.map((c) => textContent(c) + c.tail).join("");
}

/** Zulip's get_text: an emoji as its characters, an image as its alt text, a quote's own text dropped. */
function ownText(e: Element): string {
  if (classes(e).includes("emoji")) {
    const code = /emoji-(\S+)/.exec(e.attrs.class ?? "")?.[1];
    if (code)
      return code
        .split("-")
        .map((hex) => String.fromCodePoint(parseInt(hex, 16)))
        .join("");
  }
  if (e.tag === "img") return e.attrs.alt ?? "";
  if (e.tag === "blockquote") return "";
  return e.text;
}

/** Zulip's process, without the tail: a spoiler shows its header, an ordered list its numbers. */
function processInner(e: Element): string {
  if (e.tag === "ol") return orderedList(e);
  if (classes(e).includes("spoiler-block")) {
    const header = findByClass(e, "spoiler-header");
    const text = header ? plainText(header).trim() : "";
    return text.length === 0 ? "(…)\n" : `${text} (…)\n`;
  }
  const inner = e.children.map(process).join("");
  if (e.tag === "blockquote") {
    return inner
      .split(/\r?\n/)
      .filter((line) => line)
      .map((line) => `> ${line}\n`)
      .join("");
  }
  return ownText(e) + inner;
}

const process = (e: Element): string => processInner(e) + (e.tag === "ol" || isSpoiler(e) ? "" : e.tail);
const isSpoiler = (e: Element): boolean => classes(e).includes("spoiler-block");
const plainText = (root: Element): string => processInner(root);

function orderedList(ol: Element): string {
  let counter = ol.attrs.start ? parseInt(ol.attrs.start, 10) : 1;
  return ol.children
    .filter((li) => li.tag === "li")
    .map((li) => `${counter++}. ${process({ ...li, tail: "" }).trim()}`)
    .join("\n");
}

function findByClass(e: Element, name: string): Element | undefined {
  for (const child of e.children) {
    if (classes(child).includes(name)) return child;
    const found = findByClass(child, name);
    if (found) return found;
  }
  return undefined;
}

function descendants(e: Element): Element[] {
  return e.children.flatMap((c) => [c, ...descendants(c)]);
}

/** A link to a message of this server, as Zulip's quote-and-reply writes one (is_same_server_message_link). */
const isMessageLink = (href: string): boolean => /#narrow\/.*\/(near|with)\/\d+/.test(href);

/** Zulip's is_user_said_paragraph: "@Name [said](link):", the line a quote-and-reply starts with. */
function isUserSaidParagraph(e: Element): boolean {
  const all = descendants(e);
  const mentions = all.filter((d) => classes(d).includes("user-mention"));
  const links = all.filter((d) => d.tag === "a" && isMessageLink(d.attrs.href ?? ""));
  if (mentions.length !== 1 || links.length !== 1) return false;
  const rest = textContent(e).replace(textContent(mentions[0]!), "").replace(textContent(links[0]!), "");
  return rest.trim() === ":";
}

/**
 * Zulip's potentially_collapse_quotes: when the message has both quotes (or
 * "said" lines) and text of its own, each run of them becomes one "[…]".
 */
function collapseQuotes(root: Element): void {
  const collapsible = root.children.map((e) => e.tag === "blockquote" || (e.tag === "p" && isUserSaidParagraph(e)));
  if (collapsible.every(Boolean) || collapsible.every((c) => !c)) return;
  const kept: Element[] = [];
  root.children.forEach((child, i) => {
    if (!collapsible[i]) kept.push(child);
    else if (i === 0 || !collapsible[i - 1])
      kept.push({ tag: "p", attrs: {}, text: "[…]", tail: child.tail, children: [] });
  });
  root.children = kept;
}
