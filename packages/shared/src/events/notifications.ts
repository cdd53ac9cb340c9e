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

/**
 * One registered event queue (POST /register), as notifications stores it and
 * every instance keeps it (its EventQueueDoc); its events are in JetStream.
 */
export const eventQueue = z.object({
  realmId: int,
  /** uuid, as Zulip's */
  queueId: z.string(),
  userId: int,
  /** null = every type */
  eventTypes: z.array(z.string()).nullable(),
  allPublicStreams: z.boolean(),
  narrow: z.array(z.array(z.string())),
  clientGravatar: z.boolean(),
  applyMarkdown: z.boolean(),
  /** the register call's client_capabilities (stream_typing_notifications, ...) */
  clientCapabilities: z.record(z.string(), z.unknown()),
  /** the organization's realm_empty_topic_display_name when the client registered: the name clients without the empty_topic_name capability see for the "" topic */
  emptyTopicName: z.string(),
  /** events up to this id were acknowledged and deleted (Zulip's newest_pruned_id) */
  prunedThrough: int,
  lifespanSecs: z.number(),
  lastAccess: z.coerce.date(),
  /** lastAccess + lifespan (+ the wait of a parked poll): the sweep collects queues past it */
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
