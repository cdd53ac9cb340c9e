import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { PASS_THROUGH_EVENTS } from "../../events";
import { updateMessageEventSchema } from "../../events/messaging";
import { int } from "../common";
import { messageSchema } from "../messaging/messages";
import { REGISTER_STATE_CONTRACTS } from "../state-owners";
import { registerReplySchema } from "./register";

const eventTypesSchema = z.array(z.string()).nullable();

/** Wake subject of one queue: any instance that appended publishes, the instance holding the poll listens. */
export const queueWakeSubject = (queueId: string): string => `notifications.wake.${queueId}`;

export const QUEUE_WAKE_ALL = "notifications.wake.*";

export const deleteQueue = defineContract({
  subject: "notifications.queues.delete",
  http: { method: "DELETE", path: "/events", auth: "user", rateLimit: "instance" },
  params: z.object({ queue_id: z.string() }),
  reply: emptyReply,
});

export const registerQueue = defineContract({
  subject: "notifications.queues.register",
  // the queue here, then the state from its owners (asked by the gateway), so that no event between the two is lost
  http: {
    method: "POST",
    path: "/register",
    auth: "user",
    completedBy: { parts: REGISTER_STATE_CONTRACTS, undo: deleteQueue },
  },
  params: z.object({
    /** null (as zulip-js sends it) = every type */
    event_types: eventTypesSchema.default(null),
    /** defaults to event_types */
    fetch_event_types: eventTypesSchema.optional(),
    narrow: z.array(z.array(z.string())).default([]),
    all_public_streams: z.boolean().default(false),
    include_subscribers: z.union([z.boolean(), z.literal("partial")]).default(false),
    client_gravatar: z.boolean().default(true),
    slim_presence: z.boolean().default(false),
    apply_markdown: z.boolean().default(false),
    client_capabilities: z.record(z.string(), z.unknown()).default({}),
    /** Zulip's intentionally undocumented idle timeout; 0 = the server default */
    queue_lifespan_secs: z.number().int().min(0).default(0),
  }),
  // what the client gets: the parts' keys are the state owners' (HttpBinding.completedBy)
  reply: registerReplySchema(REGISTER_STATE_CONTRACTS),
});

/** Zulip's message event: the message as this queue's client asked for it at register, with the user's flags. */
export const messageEventSchema = z.object({
  type: z.literal("message"),
  message: messageSchema,
  flags: z.array(z.string()),
  /** only in the sending client's queue: the local_id it sent the message with */
  local_message_id: z.string().optional(),
});
export type MessageEvent = z.infer<typeof messageEventSchema>;

/** Zulip's update_message event: the edit, with this user's flags for the edited message. */
export const updateMessageClientEventSchema = updateMessageEventSchema.extend({ flags: z.array(z.string()) });

/** What a queue holds: the catalogue's client events as published, message and update_message events, and heartbeats. */
const clientEventSchema = z.union([
  ...PASS_THROUGH_EVENTS.map((def) => def.payload.shape.event),
  messageEventSchema,
  updateMessageClientEventSchema,
  z.object({ type: z.literal("heartbeat") }),
]);
export type ClientEvent = z.infer<typeof clientEventSchema>;

/** Longest a GET /events waits on the bus; the heartbeat comes earlier (EVENT_HEARTBEAT_SECONDS, capped below this). */
const EVENTS_BUS_TIMEOUT_MS = 100_000;

/** The poll gives up this long before the bus would, so the heartbeat always wins the race. */
export const EVENTS_TIMEOUT_MARGIN_MS = 10_000;

export const getEvents = defineContract({
  subject: "notifications.events.get",
  http: {
    method: "GET",
    path: "/events",
    auth: "user",
    rateLimit: "instance",
    // no events: the client polls again at once, with the same last_event_id, through another gateway
    answerWhenStopping: ({ queue_id }) => (typeof queue_id === "string" ? { events: [], queue_id } : undefined),
  },
  params: z.object({
    queue_id: z.string().optional(),
    last_event_id: z.number().int().optional(),
    dont_block: z.boolean().default(false),
  }),
  reply: z.object({
    events: z.array(z.intersection(clientEventSchema, z.object({ id: int }))),
    queue_id: z.string(),
  }),
  timeoutMs: EVENTS_BUS_TIMEOUT_MS,
  keepAlive: { everyMs: 5_000 },
});
