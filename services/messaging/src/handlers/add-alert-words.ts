import { requireUser, type Handler, type messaging, type EventPublisher } from "@teamchat/shared";
import { publishAlertWords } from "../alert-words/alert-words-changed";
import type { AlertWordIndex } from "../alert-words/alert-word-index";

/**
 * POST /users/me/alert_words (Zulip's add_alert_words, clean_alert_words and
 * add_user_alert_words): words stripped, blank ones dropped, those the user
 * has (case-insensitively) skipped; of several spellings of one new word the
 * last is kept. The alert_words event is sent whether or not anything changed,
 * as Zulip's do_add_alert_words does.
 */
export const addAlertWordsHandler =
  (deps: {
    alertWords: AlertWordIndex;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.addAlertWords> =>
  async ({ alert_words }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const known = new Set((await deps.alertWords.stored.ofUser(realm.id, actor.userId)).map((w) => w.toLowerCase()));
    const added = new Map<string, string>();
    for (const word of alert_words.map((w) => w.trim()).filter((w) => w !== "")) {
      if (!known.has(word.toLowerCase())) added.set(word.toLowerCase(), word);
    }
    await deps.alertWords.stored.add(realm.id, actor.userId, [...added.values()]);
    return { alert_words: await publishAlertWords(deps, ctx, realm.id, actor.userId) };
  };
