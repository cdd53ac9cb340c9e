/** ElementTree's escaping of an attribute's value, as Zulip's HTML has it. */
export const escapeAttribute = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * Python's html.escape, which Django's escape() is: both kinds of quotes too
 * (Zulip's escaped TeX source, search topics, digest emails).
 */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]!);

/** ElementTree's escaping of text (Zulip's HTML): quotes stay as they are. */
export const escapeText = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
