import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { int } from "../common";

// reaction_type as a string: Zulip's own errors name an unknown one ("Invalid emoji type."), and
// another spelling of the built-in type (service_extra_emoji) is taken beside zulip.yaml's.

/** POST /messages/{message_id}/reactions: the caller's emoji reaction, by name or by name, code and type. */
export const addReaction = defineContract({
  subject: "messaging.reactions.add",
  http: { method: "POST", path: "/messages/{message_id}/reactions", auth: "user" },
  params: z.object({
    message_id: int.min(0),
    emoji_name: z.string(),
    emoji_code: z.string().optional(),
    reaction_type: z.string().optional(),
  }),
  reply: emptyReply,
});

/** DELETE /messages/{message_id}/reactions: the caller's reaction, by code and type, or by name. */
export const removeReaction = defineContract({
  subject: "messaging.reactions.remove",
  http: { method: "DELETE", path: "/messages/{message_id}/reactions", auth: "user" },
  params: z.object({
    message_id: int.min(0),
    emoji_name: z.string().optional(),
    emoji_code: z.string().optional(),
    reaction_type: z.string().default("unicode_emoji"),
  }),
  reply: emptyReply,
});
