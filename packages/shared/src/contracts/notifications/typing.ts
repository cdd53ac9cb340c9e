import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";

const opSchema = z.enum(["start", "stop"]);

export const setTypingStatus = defineContract({
  subject: "notifications.typing.set",
  http: { method: "POST", path: "/typing", auth: "user" },
  params: z.object({
    /** "private" is the pre-FL-174 name of "direct", kept for old clients */
    type: z.enum(["direct", "private", "stream", "channel"]).default("direct"),
    op: opSchema,
    to: z.array(z.number().int()).optional(),
    stream_id: z.number().int().optional(),
    topic: z.string().optional(),
  }),
  reply: emptyReply,
});

export const setMessageEditTypingStatus = defineContract({
  subject: "notifications.typing.set_edit",
  http: { method: "POST", path: "/messages/{message_id}/typing", auth: "user" },
  params: z.object({ message_id: z.number().int().min(0), op: opSchema }),
  reply: emptyReply,
});
