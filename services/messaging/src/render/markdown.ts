import MarkdownIt from "markdown-it";

// Zulip-like rendering: raw HTML is escaped, bare URLs become links, single newlines are line breaks.
const md = new MarkdownIt({ html: false, linkify: true, breaks: true });

export const renderMarkdown = (text: string): string => (text === "" ? "" : md.render(text).trimEnd());
