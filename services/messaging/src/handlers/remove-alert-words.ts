import { requireUser, type Handler, type messaging, type EventPublisher } from "@teamchat/shared";
import { publishAlertWords } from "../alert-words/alert-words-changed";
import type { AlertWordIndex } from "../alert-words/alert-word-index";

/** DELETE /users/me/alert_words (Zulip's remove_alert_words): case-insensitive, unknown words ignored, always an event. */
export const removeAlertWordsHandler =
  (deps: {
    alertWords: AlertWordIndex;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.removeAlertWords> =>
  async ({ alert_words }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await deps.alertWords.stored.remove(realm.id, actor.userId, alert_words);
    return { alert_words: await publishAlertWords(deps, ctx, realm.id, actor.userId) };
  };
