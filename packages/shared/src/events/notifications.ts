// Events notifications publishes (typing: nothing is stored, the event is all there is).
import { z } from "zod";
import { clientEventPayload, defineEvent } from "./define";

const int = z.number().int();
const op = z.enum(["start", "stop"]);
const sender = z.object({ user_id: int, email: z.string() });

export const typing = defineEvent(
  "notifications",
  "typing",
  clientEventPayload(
    z.discriminatedUnion("message_type", [
      z.object({
        type: z.literal("typing"),
        message_type: z.literal("direct"),
        op,
        sender,
        recipients: z.array(sender),
      }),
      z.object({
        type: z.literal("typing"),
        message_type: z.literal("stream"),
        op,
        sender,
        stream_id: int,
        topic: z.string(),
      }),
    ]),
  ),
);

/** Someone is editing a message (Zulip's typing_edit_message event). */
export const typingEditMessage = defineEvent(
  "notifications",
  "typing_edit_message",
  clientEventPayload(
    z.object({
      type: z.literal("typing_edit_message"),
      op,
      sender_id: int,
      message_id: int,
      recipient: z.discriminatedUnion("type", [
        z.object({ type: z.literal("channel"), channel_id: int, topic: z.string() }),
        z.object({ type: z.literal("direct"), user_ids: z.array(int) }),
      ]),
    }),
  ),
);

/** A registered event queue, as notifications stores it (EventQueueDoc). */
const eventQueue = z.object({
  realmId: int,
  queueId: z.string(),
  userId: int,
  eventTypes: z.array(z.string()).nullable(),
  allPublicStreams: z.boolean(),
  narrow: z.array(z.array(z.string())),
  clientGravatar: z.boolean(),
  applyMarkdown: z.boolean(),
  clientCapabilities: z.record(z.string(), z.unknown()),
  emptyTopicName: z.string(),
  prunedThrough: int,
  lifespanSecs: z.number(),
  lastAccess: z.coerce.date(),
  expiresAt: z.coerce.date(),
});

/**
 * An organization's event queues changed: one was created (`added`), or one
 * (`removed`) deleted or collected. Every notifications instance changes its
 * list of the organization's queues to match; an event with neither (from an
 * older instance) makes it forget the list.
 */
export const queuesChanged = defineEvent(
  "notifications",
  "queues_changed",
  z.object({ realmId: int, removed: z.string().nullable(), added: eventQueue.optional() }),
);
