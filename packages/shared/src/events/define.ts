import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from "@nats-io/transport-node";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import type { Logger } from "pino";
import { REQUEST_ID_HEADER } from "../bus";
import { awaitWithRequest } from "../request-scope";
import { metricsOf, type ServiceMetrics } from "../metrics";
import type { Connection } from "../db";
import type { ProcessName } from "../services";
import { EventOutbox, type HeldEvent } from "./outbox";

/**
 * A domain event: published by one service after a write commits, on its own
 * subject, with a payload every consumer parses with the same schema.
 */
export interface EventDefinition<P extends z.ZodType = z.ZodType, S extends ProcessName = ProcessName> {
  /** `events.<publisher>.<name>` */
  subject: string;
  publisher: S;
  payload: P;
}

export const defineEvent = <S extends ProcessName, P extends z.ZodType>(
  publisher: S,
  name: string,
  payload: P,
): EventDefinition<P, S> => ({ subject: `events.${publisher}.${name}`, publisher, payload });

export type PayloadOf<E extends EventDefinition> = z.output<E["payload"]>;

/** Who may see a client event: listed users, or every user of the organization. */
export const audienceSchema = z.union([z.array(z.number().int()), z.literal("all")]);
export type Audience = z.infer<typeof audienceSchema>;

/**
 * The payload of an event that notifications copies, as is, into the event
 * queues of the users who may see it: a Zulip event and its audience.
 */
export const clientEventPayload = <E extends z.ZodType>(event: E) =>
  z.object({ realmId: z.number().int(), userIds: audienceSchema, event });

const encoder = new TextEncoder();

/**
 * The only way a service publishes events: its own definitions only, payloads
 * typed by them. Events go into the domain event stream (see stream.ts); core
 * subscribers of the subject (every instance's caches) get them as well. In a
 * bus request, the reply waits for the stream to have stored them
 * (withRequestScope); elsewhere a failed store is logged.
 */
export class EventPublisher<S extends ProcessName> {
  private readonly js: JetStreamClient;
  private readonly metrics: ServiceMetrics;
  private readonly outbox: EventOutbox | undefined;

  constructor(
    nc: NatsConnection,
    readonly service: S,
    /** Check payloads against their schemas before sending (development and tests). */
    private readonly checkPayloads = true,
    private readonly log?: Logger,
    /** The service's database: events the stream does not take in time are held there (see EventOutbox). */
    db?: Connection,
  ) {
    this.js = jetstream(nc);
    this.metrics = metricsOf(nc);
    this.outbox = db && new EventOutbox(db, (e) => this.relay(e), log).start();
  }

  stop(): Promise<void> {
    return this.outbox?.stop() ?? Promise.resolve();
  }

  publish<P extends z.ZodType>(def: EventDefinition<P, S>, payload: z.input<P>, requestId?: string): void {
    const ack = this.publishAndWait(def, payload, requestId);
    if (!awaitWithRequest(ack)) {
      ack.catch((err: unknown) => this.log?.error({ err, subject: def.subject, requestId }, "domain event not stored"));
    }
  }

  /**
   * Publishes and resolves once the stream has stored the event, for a writer
   * that must know before going on. `msgID` names the event for the stream's
   * duplicate check (2 minutes): a writer that publishes the same event again
   * (resuming work that failed halfway) gives the same one, and it is stored once.
   */
  async publishAndWait<P extends z.ZodType>(
    def: EventDefinition<P, S>,
    payload: z.input<P>,
    requestId?: string,
    msgID: string = randomUUID(),
  ): Promise<void> {
    const { userIds } = payload as { userIds?: unknown };
    if (Array.isArray(userIds) && userIds.length === 0) return;
    if (this.checkPayloads) {
      const checked = def.payload.safeParse(payload);
      if (!checked.success) throw new Error(`${def.subject}: payload breaks its schema: ${checked.error.message}`);
    }
    const h = natsHeaders();
    if (requestId) h.set(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    try {
      await this.store(def.subject, JSON.stringify(payload), h, msgID);
    } catch (err) {
      this.metrics.eventPublishFailures.inc({ event: def.subject });
      throw err;
    }
    this.metrics.eventPublishSeconds.observe((performance.now() - started) / 1000);
    this.metrics.eventsPublished.inc({ event: def.subject });
  }

  /**
   * Publishes until the stream acknowledges. An attempt made while the
   * connection is re-established after a NATS restart, or while the stream
   * elects a leader, waits for nothing (its reply is lost): after a first
   * attempt of normal length, short ones, each with the same message id, so
   * the stream keeps one copy whichever attempts arrived (and EventFeed
   * applies one of the copies core subscribers get). With an outbox, the
   * event is held there after HOLD_AFTER_MS of failures, and at once while
   * earlier ones wait there.
   */
  private async store(subject: string, json: string, headers: MsgHdrs, msgID: string): Promise<void> {
    const hold = () =>
      this.outbox!.hold({ _id: msgID, subject, data: json, requestId: headers.get(REQUEST_ID_HEADER) || null });
    if (this.outbox?.backlog) return hold();
    const data = encoder.encode(json);
    const giveUpAt = Date.now() + (this.outbox ? HOLD_AFTER_MS : PUBLISH_GIVE_UP_MS);
    for (let attempt = 1; ; attempt++) {
      try {
        const timeout = attempt === 1 ? FIRST_ATTEMPT_TIMEOUT_MS : RETRY_ATTEMPT_TIMEOUT_MS;
        await this.js.publish(subject, data, { headers, msgID, timeout });
        return;
      } catch (err) {
        if (Date.now() + RETRY_PAUSE_MS >= giveUpAt) {
          if (this.outbox) return hold();
          throw err;
        }
        if (attempt === 1) this.log?.warn({ err, subject }, "domain event not stored yet: trying again");
        await sleep(RETRY_PAUSE_MS);
      }
    }
  }

  /** The relay's attempt for a held event: one, short. */
  private async relay({ _id, subject, data, requestId }: HeldEvent): Promise<void> {
    const headers = natsHeaders();
    if (requestId) headers.set(REQUEST_ID_HEADER, requestId);
    await this.js.publish(subject, encoder.encode(data), { headers, msgID: _id, timeout: FIRST_ATTEMPT_TIMEOUT_MS });
  }
}

/** A domain event's publish: 5 s in all, covering a NATS restart; the first attempt 1 s, later ones 250 ms. */
const PUBLISH_GIVE_UP_MS = 5_000;
/** With an outbox: held after this long instead (a stream electing a leader takes 4–9 s). */
const HOLD_AFTER_MS = 1_500;
const FIRST_ATTEMPT_TIMEOUT_MS = 1_000;
const RETRY_ATTEMPT_TIMEOUT_MS = 250;
const RETRY_PAUSE_MS = 50;
