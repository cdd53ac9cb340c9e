import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { AlertWordIndex } from "./alert-word-index";

/** register's alert_words: the caller's words, from memory. */
export const alertWordsState = (deps: { alertWords: AlertWordIndex }): StateProvider[] => [
  provideState(messaging.alertWordsState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { alert_words: [...(await deps.alertWords.ofUser(realm.id, actor.userId))] };
  }),
];
