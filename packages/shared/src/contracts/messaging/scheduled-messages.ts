import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList } from "../common";

/** Zulip's ScheduledMessage.to_dict: a channel message has its channel id as `to` and a topic; a direct one the other participants. */
export const scheduledMessageSchema = z.union([
  z.strictObject({
    scheduled_message_id: int,
    to: int,
    type: z.literal("stream"),
    content: z.string(),
    rendered_content: z.string(),
    topic: z.string(),
    scheduled_delivery_timestamp: int,
    failed: z.boolean(),
  }),
  z.strictObject({
    scheduled_message_id: int,
    to: intList,
    type: z.literal("private"),
    content: z.string(),
    rendered_content: z.string(),
    scheduled_delivery_timestamp: int,
    failed: z.boolean(),
  }),
]);
export type ScheduledMessage = z.infer<typeof scheduledMessageSchema>;

const messageType = z.enum(["direct", "channel", "stream", "private"]);
/** A channel id, or a list of user ids (checked per type, with Zulip's messages, by the handler). */
const scheduledTo = z.union([int, z.array(z.unknown())]);

/** GET /scheduled_messages: the caller's undelivered scheduled messages, soonest first. */
export const getScheduledMessages = defineContract({
  subject: "messaging.scheduled_messages.list",
  http: { method: "GET", path: "/scheduled_messages", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ scheduled_messages: z.array(scheduledMessageSchema) }),
});

export const createScheduledMessage = defineContract({
  subject: "messaging.scheduled_messages.create",
  http: { method: "POST", path: "/scheduled_messages", auth: "user" },
  params: z.object({
    type: messageType,
    to: scheduledTo,
    content: z.string(),
    topic: z.string().optional(),
    scheduled_delivery_timestamp: int,
    read_by_sender: z.boolean().optional(),
  }),
  reply: z.strictObject({ scheduled_message_id: int }),
});

export const updateScheduledMessage = defineContract({
  subject: "messaging.scheduled_messages.update",
  http: { method: "PATCH", path: "/scheduled_messages/{scheduled_message_id}", auth: "user" },
  params: z.object({
    scheduled_message_id: int,
    type: messageType.optional(),
    to: scheduledTo.optional(),
    content: z.string().optional(),
    topic: z.string().optional(),
    scheduled_delivery_timestamp: int.optional(),
  }),
  reply: z.strictObject({}),
});

export const deleteScheduledMessage = defineContract({
  subject: "messaging.scheduled_messages.delete",
  http: { method: "DELETE", path: "/scheduled_messages/{scheduled_message_id}", auth: "user" },
  params: z.object({ scheduled_message_id: int }),
  reply: z.strictObject({}),
});
