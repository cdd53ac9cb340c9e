import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList } from "../common";
import { looseObject } from "./channel-params";

export const sendMessage = defineContract({
  subject: "messaging.messages.send",
  http: { method: "POST", path: "/messages", auth: "user" },
  params: z.object({
    type: z.enum(["direct", "channel", "private", "stream"]),
    to: z.union([z.string(), int, z.array(z.union([int, z.string()]))]),
    content: z.string(),
    topic: z.string().optional(),
    subject: z.string().optional(),
    queue_id: z.string().optional(),
    local_id: z.string().optional(),
    read_by_sender: z.boolean().optional(),
  }),
  reply: z.object({ id: int, automatic_new_visibility_policy: int.optional() }),
});

/** A narrow term: Zulip's object form or the legacy [operator, operand] pair. */
export const narrowTermSchema = z.union([
  z.object({
    operator: z.string(),
    operand: z.union([z.string(), int, intList, z.array(z.string())]),
    negated: z.boolean().default(false),
  }),
  z.tuple([z.string(), z.union([z.string(), int, intList, z.array(z.string())])]),
]);

export const getMessages = defineContract({
  subject: "messaging.messages.list",
  http: { method: "GET", path: "/messages", auth: "user" },
  params: z.object({
    anchor: z.union([z.string(), int]).optional(),
    include_anchor: z.boolean().optional(),
    num_before: int.min(0).optional(),
    num_after: int.min(0).optional(),
    narrow: z.array(narrowTermSchema).default([]),
    client_gravatar: z.boolean().default(true),
    apply_markdown: z.boolean().default(true),
    message_ids: z.array(int.min(0)).optional(),
    allow_empty_topic_name: z.boolean().default(false),
    use_first_unread_anchor: z.boolean().optional(),
  }),
  reply: z.object({
    /** "newest" answers Zulip's LARGER_THAN_MAX_MESSAGE_ID (10^16), beyond the safe-integer range zod's int allows */
    anchor: z.number().optional(),
    found_anchor: z.boolean(),
    found_oldest: z.boolean(),
    found_newest: z.boolean(),
    history_limited: z.boolean(),
    messages: z.array(looseObject),
  }),
});
