/**
 * Zulip's zerver/lib/string_validation.py is_character_printable: control
 * characters (Cc), surrogates (Cs, lone ones: a pair is one character) and the
 * 66 Unicode non-characters are refused in names and topics.
 */
const NOT_PRINTABLE =
  /[\p{Cc}\p{Cs}\u{FDD0}-\u{FDEF}\u{FFFE}\u{FFFF}\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;

export const isPrintable = (char: string): boolean => !NOT_PRINTABLE.test(char);

/**
 * Zulip's check_string_is_printable: the position of the first character that
 * is not printable, 1-based and counted in code points as Python counts a
 * str's characters; null when every character is printable.
 */
export function unprintablePosition(text: string): number | null {
  if (!NOT_PRINTABLE.test(text)) return null;
  return [...text].findIndex((char) => !isPrintable(char)) + 1;
}

/**
 * Python's str.isspace characters, which str.strip removes: unlike
 * String.prototype.trim, also U+001C-U+001F and U+0085, but not U+FEFF.
 */
// eslint-disable-next-line no-control-regex -- these control characters are Python's whitespace
const PYTHON_WHITESPACE = /[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/** Python's str.strip(), as Zulip strips a topic before checking it (Addressee.for_stream, update_message_backend). */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PYTHON_WHITESPACE.test(text[start]!)) start++;
  while (end > start && PYTHON_WHITESPACE.test(text[end - 1]!)) end--;
  return text.slice(start, end);
}
