import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { AlertWordIndex } from "../alert-words/alert-word-index";

/** GET /users/me/alert_words (Zulip's list_alert_words). */
export const getAlertWordsHandler =
  (deps: { alertWords: AlertWordIndex }): Handler<typeof messaging.getAlertWords> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { alert_words: [...(await deps.alertWords.ofUser(realm.id, actor.userId))] };
  };
