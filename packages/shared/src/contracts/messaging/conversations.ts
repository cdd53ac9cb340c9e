import { z } from "zod";
import { defineContract } from "../../contract";

/**
 * Internal: who is in a conversation, for typing notifications. The caller is
 * the actor; messaging refuses (with Zulip's errors) what the actor may not see.
 * - channel: the channel's subscribers (stream_id + topic)
 * - direct: the users in `to` plus the actor
 * - message_id: the audience of that message (typing while editing a message)
 */
export const getConversationAudience = defineContract({
  subject: "messaging.conversations.audience",
  params: z.object({
    stream_id: z.number().int().optional(),
    topic: z.string().optional(),
    to: z.array(z.number().int()).optional(),
    message_id: z.number().int().optional(),
  }),
  reply: z.object({
    user_ids: z.array(z.number().int()),
    /** for channel conversations: where, as Zulip's typing events carry it */
    stream_id: z.number().int().optional(),
    topic: z.string().optional(),
  }),
});
