import { z } from "zod";
import { defineContract } from "../../contract";
import { int } from "../common";

/** Zulip's RESOLVED_TOPIC_PREFIX: a topic starting with it is resolved. */
export const RESOLVED_TOPIC_PREFIX = "✔ ";

export const getStreamTopics = defineContract({
  subject: "messaging.topics.list",
  http: { method: "GET", path: "/users/me/{stream_id}/topics", auth: "user" },
  params: z.object({ stream_id: int, allow_empty_topic_name: z.boolean().default(false) }),
  reply: z.object({ topics: z.array(z.object({ name: z.string(), max_id: int })) }),
});

/** POST /streams/{stream_id}/delete_topic (administrators): deletes newest first, in batches, within a time budget. */
export const deleteTopic = defineContract({
  subject: "messaging.topics.delete",
  http: { method: "POST", path: "/streams/{stream_id}/delete_topic", auth: "user" },
  params: z.object({ stream_id: int, topic_name: z.string() }),
  /** above the deletion's time budget (DELETE_TOPIC_TIME_BUDGET_SECONDS, at most 50 s) */
  timeoutMs: 60_000,
  /** false: the time budget ran out with messages left; the client repeats the request */
  reply: z.object({ complete: z.boolean() }),
});
