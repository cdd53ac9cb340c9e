/**
 * Zulip's AlertWordNotificationProcessor: an alert word matches where it
 * appears in the message's Markdown source, compared lowercased, with at its
 * start the beginning of the text or one of these characters before it...
 */
const ALLOWED_BEFORE = new Set([" ", "\n", "(", '"', ".", ",", "'", ";", "[", "*", "`", ">"]);
/** ...and at its end the end of the text or one of these after it (Zulip's set; its '",' never matches one character). */
const ALLOWED_AFTER = new Set([" ", "\n", ")", "?", ":", ".", ",", "'", ";", "]", "!", "*", "`"]);

/** Whether `word` (lowercase) appears in `text` (lowercase) as a whole word by Zulip's rule. */
function appears(text: string, word: string): boolean {
  for (let start = text.indexOf(word); start >= 0; start = text.indexOf(word, start + 1)) {
    const end = start + word.length;
    if (
      (start === 0 || ALLOWED_BEFORE.has(text[start - 1]!)) &&
      (end === text.length || ALLOWED_AFTER.has(text[end]!))
    ) {
      return true;
    }
  }
  return false;
}

/** The recipients among `userIds` with an alert word in `content`: they get the has_alert_word flag. */
export function usersAlerted(
  content: string,
  userIds: readonly number[],
  wordsByUser: ReadonlyMap<number, readonly string[]>,
): Set<number> {
  const text = content.toLowerCase();
  return new Set(userIds.filter((id) => wordsByUser.get(id)?.some((word) => appears(text, word.toLowerCase()))));
}
