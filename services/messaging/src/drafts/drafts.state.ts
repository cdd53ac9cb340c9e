import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";
import { toDraft, type DraftRepository } from "./draft.repository";

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE: more are fetched with GET /drafts. */
const MAX_DRAFTS_IN_REGISTER = 1000;

/**
 * register's drafts: the most recently edited first (Zulip's fetch_initial_state_data);
 * none while synchronization is off, whose drafts are being deleted.
 */
export const draftsState = (deps: { drafts: DraftRepository; users: UserDirectory }): StateProvider[] => [
  provideState(messaging.draftsState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const me = (await deps.users.byIds(ctx, realm.id, [actor.userId])).get(actor.userId);
    if (!me?.enable_drafts_synchronization) return { drafts: [] };
    const drafts = await deps.drafts.ofUser(realm.id, actor.userId);
    return { drafts: drafts.reverse().slice(0, MAX_DRAFTS_IN_REGISTER).map(toDraft) };
  }),
];
