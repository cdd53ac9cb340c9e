import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList } from "../common";

/**
 * Zulip's Draft as clients send it (DraftData): no id; `timestamp` (UNIX
 * seconds, fractions allowed) defaults to now.
 */
export const draftInputSchema = z.strictObject({
  type: z.enum(["", "stream", "private"]),
  to: intList,
  topic: z.string(),
  content: z.string().trim().min(1),
  timestamp: z.number().optional(),
});
export type DraftInput = z.infer<typeof draftInputSchema>;

/** Zulip's Draft.to_dict: `to` is the channel, or the other participants (oneself for a note to self). */
export const draftSchema = z.strictObject({
  id: int,
  type: z.enum(["", "stream", "private"]),
  to: intList,
  topic: z.string(),
  content: z.string(),
  timestamp: int,
});
export type Draft = z.infer<typeof draftSchema>;

/** GET /drafts: the caller's drafts, least recently edited first (Zulip orders by last_edit_time). */
export const getDrafts = defineContract({
  subject: "messaging.drafts.list",
  http: { method: "GET", path: "/drafts", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ count: int, drafts: z.array(draftSchema) }),
});

/** POST /drafts: creates drafts in bulk; `ids` in the order given. */
export const createDrafts = defineContract({
  subject: "messaging.drafts.create",
  http: { method: "POST", path: "/drafts", auth: "user" },
  params: z.object({ drafts: z.array(draftInputSchema) }),
  reply: z.strictObject({ ids: intList }),
});

/** PATCH /drafts/{draft_id}: replaces the draft. */
export const editDraft = defineContract({
  subject: "messaging.drafts.edit",
  http: { method: "PATCH", path: "/drafts/{draft_id}", auth: "user" },
  params: z.object({ draft_id: int, draft: draftInputSchema }),
  reply: z.strictObject({}),
});

/** DELETE /drafts/{draft_id}. */
export const deleteDraft = defineContract({
  subject: "messaging.drafts.delete",
  http: { method: "DELETE", path: "/drafts/{draft_id}", auth: "user" },
  params: z.object({ draft_id: int }),
  reply: z.strictObject({}),
});
