import MarkdownIt from "markdown-it";

/** Zulip-like Markdown for descriptions: no raw HTML, bare URLs linked, newlines kept as line breaks. */
const md = new MarkdownIt({ html: false, linkify: true, breaks: true });

/** HTML as Zulip stores it in rendered_* fields ("" for empty text, no trailing newline). */
export const renderMarkdown = (text: string): string => md.render(text).trimEnd();
