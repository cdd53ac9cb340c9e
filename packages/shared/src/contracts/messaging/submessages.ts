import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { int } from "../common";

/** Zulip's submessage object (SubMessage.get_raw_db_rows), as messages and their events carry it. */
export const submessageSchema = z.object({
  id: int,
  message_id: int,
  sender_id: int,
  msg_type: z.string(),
  content: z.string(),
});
export type Submessage = z.infer<typeof submessageSchema>;

/**
 * POST /submessage (Zulip's process_submessage): a widget's change (a poll's
 * vote, a todo list's task) attached to a message, `content` being the JSON
 * the widget reads.
 */
export const sendSubmessage = defineContract({
  subject: "messaging.submessages.send",
  http: { method: "POST", path: "/submessage", auth: "user" },
  params: z.object({ message_id: int, msg_type: z.string(), content: z.string() }),
  reply: emptyReply,
});
