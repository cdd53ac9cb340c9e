import { z } from "zod";
import { defineContract, type Contract } from "../contract";
import type { BusService } from "../services";

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

/**
 * One feature's part of POST /register: the event types that keep it current
 * (computed only when the client wants all of them; none = always) and the
 * exact keys it adds. Declared beside the feature's other contracts.
 */
export interface StatePart<S extends z.ZodRawShape = z.ZodRawShape> {
  eventTypes: readonly string[];
  schema: z.ZodObject<S>;
}

export const statePart = <S extends z.ZodRawShape>(
  eventTypes: readonly string[],
  schema: z.ZodObject<S>,
): StatePart<S> => ({
  eventTypes,
  schema,
});

/** Is this part wanted by the client? */
export const partWanted = (part: StatePart, p: Pick<RegisterStateParams, "fetch_event_types">): boolean =>
  p.fetch_event_types === null || part.eventTypes.every((type) => p.fetch_event_types!.includes(type));

/**
 * A service's `<service>.register.state` operation: the keys of the parts the
 * client wants. The reply is exactly the union of the parts' keys, no others.
 */
export function registerStateContract<const Parts extends readonly StatePart[]>(
  service: BusService,
  parts: Parts,
  opts: Pick<Contract, "sharedPieces"> = {},
) {
  const shape = Object.assign({}, ...parts.map((p) => p.schema.partial().shape)) as z.ZodRawShape;
  return {
    ...defineContract({
      subject: `${service}.register.state`,
      params: registerStateParams,
      reply: z.strictObject(shape) as z.ZodType<Record<string, unknown>>,
      ...opts,
    }),
    parts,
  };
}
export type RegisterStateContract = ReturnType<typeof registerStateContract>;
