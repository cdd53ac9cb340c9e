import type { NatsConnection } from "@nats-io/transport-node";
import { publishJson } from "./bus";

/**
 * A domain event as services publish it after a write: a Zulip-shaped event and
 * the users who may see it. notifications copies it into those users' queues.
 * `perUser` holds fields that differ by recipient (e.g. message flags).
 */
export interface DomainEvent {
  realmId: number;
  /** recipients; "all" = every user of the realm (for owners of realm-wide data who do not list users) */
  userIds: number[] | "all";
  event: { type: string; [field: string]: unknown };
  perUser?: Record<number, Record<string, unknown>>;
  /** message events: the Markdown source, for clients registered with apply_markdown=false (not sent as such) */
  markdown?: string;
}

/** Subject of domain events: `events.<service>.<event type>`. notifications listens on `events.>`. */
export const eventSubject = (service: string, type: string): string => `events.${service}.${type}`;
export const ALL_EVENTS = "events.>";

/** Published (not queued) so that every gateway instance drops its cached credentials. */
export const AUTH_INVALIDATED = "identity.auth.invalidated";
export interface AuthInvalidated {
  userId: number;
}

export function publishEvent(nc: NatsConnection, service: string, ev: DomainEvent, requestId?: string): void {
  if (Array.isArray(ev.userIds) && ev.userIds.length === 0) return;
  publishJson(nc, eventSubject(service, ev.event.type), ev, requestId);
}
