import { messaging, provideState, requireUser, userKey, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";
import { toSavedSnippet } from "./saved-snippet.repository";

/** register's saved_snippets: the caller's, oldest first, from memory (every register reads them). */
export const savedSnippetsState = (deps: Deps<"savedSnippets" | "snippetLists">): StateProvider[] => [
  provideState(messaging.savedSnippetsState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const load = async () => (await deps.savedSnippets.ofUser(realm.id, actor.userId)).map(toSavedSnippet);
    return { saved_snippets: await deps.snippetLists.get(userKey(realm.id, actor.userId), load) };
  }),
];
