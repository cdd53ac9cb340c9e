import {
  messaging,
  provideState,
  requireUser,
  userKey,
  type EventKeyedCache,
  type messagingEvents,
  type StateProvider,
} from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";
import { toDraft, type DraftRepository } from "./draft.repository";

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE: more are fetched with GET /drafts. */
const MAX_DRAFTS_IN_REGISTER = 1000;

/** register's drafts of each user, kept by user key */
export type DraftLists = EventKeyedCache<messaging.Draft[], typeof messagingEvents.draftsChanged.payload>;

/**
 * register's drafts: the most recently edited first (Zulip's fetch_initial_state_data),
 * from memory (every register reads them); none while synchronization is off,
 * whose drafts are being deleted. Creation, edits and deletions publish the
 * drafts events that drop them; the deletion as synchronization stops, which
 * Zulip tells no client of, publishes user_lists_changed.
 */
export const draftsState = (deps: {
  drafts: DraftRepository;
  users: UserDirectory;
  /** each user's list as register shows it, dropped on drafts, user_settings and user_lists_changed events */
  draftLists: DraftLists;
}): StateProvider[] => [
  provideState(messaging.draftsState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const me = (await deps.users.byIds(ctx, realm.id, [actor.userId])).get(actor.userId);
    if (!me?.enable_drafts_synchronization) return { drafts: [] };
    const load = async () =>
      (await deps.drafts.ofUser(realm.id, actor.userId)).reverse().slice(0, MAX_DRAFTS_IN_REGISTER).map(toDraft);
    return { drafts: await deps.draftLists.get(userKey(realm.id, actor.userId), load) };
  }),
];
