import {
  ZulipError,
  messagingEvents,
  requireUser,
  type Handler,
  type messaging,
  type EventPublisher,
} from "@teamchat/shared";
import { toSavedSnippet, type SavedSnippetRepository } from "../saved-snippets/saved-snippet.repository";

interface SavedSnippetDeps {
  savedSnippets: SavedSnippetRepository;
  events: EventPublisher<"messaging">;
}

/** Zulip's ResourceNotFoundError for another user's or a missing snippet. */
const snippetNotFound = () => new ZulipError("BAD_REQUEST", "Saved snippet does not exist.", 404);

/** GET /saved_snippets (Zulip's do_get_saved_snippets). */
export const getSavedSnippetsHandler =
  (deps: { savedSnippets: SavedSnippetRepository }): Handler<typeof messaging.getSavedSnippets> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { saved_snippets: (await deps.savedSnippets.ofUser(realm.id, actor.userId)).map(toSavedSnippet) };
  };

/** POST /saved_snippets (Zulip's do_create_saved_snippet): title and content stripped; saved_snippets add. */
export const createSavedSnippetHandler =
  (deps: SavedSnippetDeps): Handler<typeof messaging.createSavedSnippet> =>
  async ({ title, content }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const snippet = await deps.savedSnippets.insert(realm.id, actor.userId, title, content);
    deps.events.publish(
      messagingEvents.savedSnippetsChanged,
      {
        realmId: realm.id,
        userIds: [actor.userId],
        event: { type: "saved_snippets", op: "add", saved_snippet: toSavedSnippet(snippet) },
      },
      ctx.requestId,
    );
    return { saved_snippet_id: snippet.savedSnippetId };
  };

/**
 * PATCH /saved_snippets/{saved_snippet_id} (Zulip's edit_saved_snippet): with
 * neither title nor content it answers success at once, without an event
 * (and without looking the snippet up, as Zulip).
 */
export const editSavedSnippetHandler =
  (deps: SavedSnippetDeps): Handler<typeof messaging.editSavedSnippet> =>
  async ({ saved_snippet_id, title, content }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (title === undefined && content === undefined) return {};
    const snippet = await deps.savedSnippets.update(realm.id, actor.userId, saved_snippet_id, {
      ...(title !== undefined ? { title } : {}),
      ...(content !== undefined ? { content } : {}),
    });
    if (!snippet) throw snippetNotFound();
    deps.events.publish(
      messagingEvents.savedSnippetsChanged,
      {
        realmId: realm.id,
        userIds: [actor.userId],
        event: { type: "saved_snippets", op: "update", saved_snippet: toSavedSnippet(snippet) },
      },
      ctx.requestId,
    );
    return {};
  };

/** DELETE /saved_snippets/{saved_snippet_id} (Zulip's do_delete_saved_snippet): saved_snippets remove. */
export const deleteSavedSnippetHandler =
  (deps: SavedSnippetDeps): Handler<typeof messaging.deleteSavedSnippet> =>
  async ({ saved_snippet_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!(await deps.savedSnippets.remove(realm.id, actor.userId, saved_snippet_id))) throw snippetNotFound();
    deps.events.publish(
      messagingEvents.savedSnippetsChanged,
      {
        realmId: realm.id,
        userIds: [actor.userId],
        event: { type: "saved_snippets", op: "remove", saved_snippet_id },
      },
      ctx.requestId,
    );
    return {};
  };
