import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { LIMITS } from "../../domain/limits";
import { int } from "../common";

/** Zulip's UserTopic.VisibilityPolicy: 0 none (inherit the channel's), 1 muted, 2 unmuted, 3 followed. */
export const VISIBILITY_POLICY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
export type VisibilityPolicy = (typeof VISIBILITY_POLICY)[keyof typeof VISIBILITY_POLICY];

/** Zulip's check_capped_string(MAX_TOPIC_NAME_LENGTH): "topic is too long (limit: 60 characters)". */
const topicParam = z.string().max(LIMITS.max_topic_length);

/**
 * PATCH /users/me/subscriptions/muted_topics (deprecated at FL 170): mutes
 * (`add`) or unmutes (`remove`) a topic of a channel named by exactly one of
 * `stream_id` and `stream`. Idempotent since FL 169.
 */
export const updateMutedTopic = defineContract({
  subject: "messaging.user-topics.mute",
  http: { method: "PATCH", path: "/users/me/subscriptions/muted_topics", auth: "user" },
  params: z.object({
    stream_id: int.optional(),
    stream: z.string().optional(),
    topic: topicParam,
    op: z.enum(["add", "remove"]),
  }),
  reply: emptyReply,
});

/** POST /user_topics (FL 170): sets the caller's visibility policy for one channel and topic. */
export const updateUserTopic = defineContract({
  subject: "messaging.user-topics.update",
  http: { method: "POST", path: "/user_topics", auth: "user" },
  params: z.object({
    stream_id: int,
    topic: topicParam,
    visibility_policy: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  }),
  reply: emptyReply,
});
