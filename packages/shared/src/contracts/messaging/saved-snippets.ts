import { z } from "zod";
import { defineContract } from "../../contract";
import { LIMITS } from "../../domain/limits";
import { int } from "../common";

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH. */
export const MAX_SAVED_SNIPPET_TITLE_LENGTH = 60;

/** Zulip's SavedSnippet.to_api_dict. */
export const savedSnippetSchema = z.strictObject({
  id: int,
  title: z.string(),
  content: z.string(),
  /** UNIX seconds */
  date_created: int,
});
export type SavedSnippet = z.infer<typeof savedSnippetSchema>;

/** Zulip's StringConstraints(min_length=1, strip_whitespace=True) on both fields. */
const snippetTitle = z.string().trim().min(1).max(MAX_SAVED_SNIPPET_TITLE_LENGTH);
const snippetContent = z.string().trim().min(1).max(LIMITS.max_message_length);

/** GET /saved_snippets: the caller's snippets, oldest first. */
export const getSavedSnippets = defineContract({
  subject: "messaging.saved_snippets.list",
  http: { method: "GET", path: "/saved_snippets", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ saved_snippets: z.array(savedSnippetSchema) }),
});

export const createSavedSnippet = defineContract({
  subject: "messaging.saved_snippets.create",
  http: { method: "POST", path: "/saved_snippets", auth: "user" },
  params: z.object({ title: snippetTitle, content: snippetContent }),
  reply: z.strictObject({ saved_snippet_id: int }),
});

/** PATCH /saved_snippets/{saved_snippet_id} (FL 368): neither field given changes nothing and sends no event. */
export const editSavedSnippet = defineContract({
  subject: "messaging.saved_snippets.edit",
  http: { method: "PATCH", path: "/saved_snippets/{saved_snippet_id}", auth: "user" },
  params: z.object({ saved_snippet_id: int, title: snippetTitle.optional(), content: snippetContent.optional() }),
  reply: z.strictObject({}),
});

export const deleteSavedSnippet = defineContract({
  subject: "messaging.saved_snippets.delete",
  http: { method: "DELETE", path: "/saved_snippets/{saved_snippet_id}", auth: "user" },
  params: z.object({ saved_snippet_id: int }),
  reply: z.strictObject({}),
});
