import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";
import { toSavedSnippet } from "./saved-snippet.repository";

/** register's saved_snippets: the caller's, oldest first. */
export const savedSnippetsState = (deps: Deps<"savedSnippets">): StateProvider[] => [
  provideState(messaging.savedSnippetsState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { saved_snippets: (await deps.savedSnippets.ofUser(realm.id, actor.userId)).map(toSavedSnippet) };
  }),
];
