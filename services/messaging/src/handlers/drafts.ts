import { messagingEvents, requireUser, type Handler, type messaging, type EventPublisher } from "@teamchat/shared";
import { checkDraft, draftNotFound, requireDraftsSynchronized, type DraftCheckDeps } from "../drafts/draft-check";
import { toDraft, type DraftRepository } from "../drafts/draft.repository";
import type { UserDirectory } from "../users/user-directory";

/** What creating and editing drafts use: the check, the drafts, and the drafts events. */
interface DraftWriteDeps extends DraftCheckDeps {
  drafts: DraftRepository;
  events: EventPublisher<"messaging">;
}

/** GET /drafts (Zulip's fetch_drafts): least recently edited first. */
export const getDraftsHandler =
  (deps: { drafts: DraftRepository; users: UserDirectory }): Handler<typeof messaging.getDrafts> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await requireDraftsSynchronized(deps, ctx, actor);
    const drafts = (await deps.drafts.ofUser(realm.id, actor.userId)).map(toDraft);
    return { count: drafts.length, drafts };
  };

/** POST /drafts (Zulip's do_create_drafts): every draft checked before any is stored; one drafts add event. */
export const createDraftsHandler =
  (deps: DraftWriteDeps): Handler<typeof messaging.createDrafts> =>
  async ({ drafts }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await requireDraftsSynchronized(deps, ctx, actor);
    const checked = [];
    for (const draft of drafts) checked.push(await checkDraft(deps, ctx, actor, draft));
    const created = await deps.drafts.insert(realm.id, actor.userId, checked);
    deps.events.publish(
      messagingEvents.draftsChanged,
      {
        realmId: realm.id,
        userIds: [actor.userId],
        event: { type: "drafts", op: "add", drafts: created.map(toDraft) },
      },
      ctx.requestId,
    );
    return { ids: created.map((d) => d.draftId) };
  };

/** PATCH /drafts/{draft_id} (Zulip's do_edit_draft): the draft replaced; drafts update. */
export const editDraftHandler =
  (deps: DraftWriteDeps): Handler<typeof messaging.editDraft> =>
  async ({ draft_id, draft }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await requireDraftsSynchronized(deps, ctx, actor);
    // Zulip looks the draft up before checking the new one
    if (!(await deps.drafts.exists(realm.id, actor.userId, draft_id))) throw draftNotFound();
    const edited = await deps.drafts.replace(
      realm.id,
      actor.userId,
      draft_id,
      await checkDraft(deps, ctx, actor, draft),
    );
    if (!edited) throw draftNotFound();
    deps.events.publish(
      messagingEvents.draftsChanged,
      { realmId: realm.id, userIds: [actor.userId], event: { type: "drafts", op: "update", draft: toDraft(edited) } },
      ctx.requestId,
    );
    return {};
  };

/** DELETE /drafts/{draft_id} (Zulip's do_delete_draft): drafts remove. */
export const deleteDraftHandler =
  (deps: {
    drafts: DraftRepository;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.deleteDraft> =>
  async ({ draft_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await requireDraftsSynchronized(deps, ctx, actor);
    if (!(await deps.drafts.remove(realm.id, actor.userId, draft_id))) throw draftNotFound();
    deps.events.publish(
      messagingEvents.draftsChanged,
      { realmId: realm.id, userIds: [actor.userId], event: { type: "drafts", op: "remove", draft_id } },
      ctx.requestId,
    );
    return {};
  };
