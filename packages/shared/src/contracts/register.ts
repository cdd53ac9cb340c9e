import { z } from "zod";
import { defineContract } from "../contract";

/**
 * POST /register's initial state is assembled by notifications from every
 * service's part: each answers `<service>.register.state` with the keys it owns,
 * limited to `fetch_event_types` (null = all). notifications creates the queue
 * before asking, so no event between the two is lost.
 */
export const registerStateParams = z.object({
  /** event types whose state is wanted; null = every type */
  fetch_event_types: z.array(z.string()).nullable(),
  client_gravatar: z.boolean(),
  include_subscribers: z.union([z.boolean(), z.literal("partial")]),
  slim_presence: z.boolean(),
  /** Zulip's client_capabilities, as sent (empty_topic_name, user_avatar_url_field_optional, ...) */
  client_capabilities: z.record(z.string(), z.unknown()),
});
export type RegisterStateParams = z.infer<typeof registerStateParams>;

export const registerState = (service: "identity" | "messaging" | "realm-config") =>
  defineContract({
    subject: `${service}.register.state`,
    params: registerStateParams,
    reply: z.record(z.string(), z.unknown()),
  });

/** Does the client want the state of this event type? */
export const wants = (p: Pick<RegisterStateParams, "fetch_event_types">, type: string): boolean =>
  p.fetch_event_types === null || p.fetch_event_types.includes(type);
