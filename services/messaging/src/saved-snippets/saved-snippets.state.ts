import {
  messaging,
  provideState,
  requireUser,
  userKey,
  type EventKeyedCache,
  type messagingEvents,
  type StateProvider,
} from "@teamchat/shared";
import { toSavedSnippet, type SavedSnippetRepository } from "./saved-snippet.repository";

/** register's saved snippets of each user, kept by user key */
export type SavedSnippetLists = EventKeyedCache<
  messaging.SavedSnippet[],
  typeof messagingEvents.savedSnippetsChanged.payload
>;

/** register's saved_snippets: the caller's, oldest first, from memory (every register reads them). */
export const savedSnippetsState = (deps: {
  savedSnippets: SavedSnippetRepository;
  /** each user's list, dropped on the saved_snippets events of every change */
  snippetLists: SavedSnippetLists;
}): StateProvider[] => [
  provideState(messaging.savedSnippetsState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const load = async () => (await deps.savedSnippets.ofUser(realm.id, actor.userId)).map(toSavedSnippet);
    return { saved_snippets: await deps.snippetLists.get(userKey(realm.id, actor.userId), load) };
  }),
];
