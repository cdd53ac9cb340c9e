import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { Deps } from "../deps";

/** GET /users/me/alert_words (Zulip's list_alert_words). */
export const getAlertWordsHandler =
  (deps: Deps<"alertWords">): Handler<typeof messaging.getAlertWords> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { alert_words: [...(await deps.alertWords.ofUser(realm.id, actor.userId))] };
  };
