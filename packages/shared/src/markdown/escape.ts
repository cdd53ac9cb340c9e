/** ElementTree's escaping of an attribute's value, as Zulip's HTML has it. */
export const escapeAttribute = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** ElementTree's escaping of text (Zulip's HTML): quotes stay as they are. */
export const escapeText = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
