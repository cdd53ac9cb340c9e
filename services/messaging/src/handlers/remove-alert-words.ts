import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import { publishAlertWords } from "../alert-words/alert-words-changed";
import type { Deps } from "../deps";

/** DELETE /users/me/alert_words (Zulip's remove_alert_words): case-insensitive, unknown words ignored, always an event. */
export const removeAlertWordsHandler =
  (deps: Deps<"alertWords" | "events">): Handler<typeof messaging.removeAlertWords> =>
  async ({ alert_words }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await deps.alertWords.stored.remove(realm.id, actor.userId, alert_words);
    return { alert_words: await publishAlertWords(deps, ctx, realm.id, actor.userId) };
  };
