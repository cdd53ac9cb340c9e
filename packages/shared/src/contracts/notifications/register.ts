import { z } from "zod";
import { completionSchema } from "../../contract";
import { int } from "../common";
import { statePart, type RegisterStateContract, type StatePart } from "../register";

/**
 * notifications' own part of POST /register: the client's HTTP timeout for
 * GET /events, longer than any heartbeat wait (Zulip sends it with the realm).
 */
export const longpollState = statePart(["realm"], z.strictObject({ event_queue_longpoll_timeout_seconds: int }));

/** What POST /register answers whatever the client asks for. */
const queueShape = {
  queue_id: z.string(),
  last_event_id: int,
  zulip_version: z.string(),
  zulip_feature_level: int,
};

export type RegisterReply = z.output<z.ZodObject<typeof queueShape>> & Record<string, unknown>;

/**
 * POST /register's reply: the queue and version fields and the keys of every
 * state part (each optional: a part is there only when the client wants it),
 * nothing else; and on the bus, before the gateway completes it with the
 * state, the `completion` it asks the parts with (HttpBinding.completedBy).
 */
export function registerReplySchema(stateContracts: readonly RegisterStateContract[]): z.ZodType<RegisterReply> {
  const parts: StatePart[] = [longpollState, ...stateContracts.flatMap((c) => c.parts)];
  return z.strictObject({
    ...(Object.assign({}, ...parts.map((p) => p.schema.partial().shape)) as z.ZodRawShape),
    ...queueShape,
    completion: completionSchema.optional(),
  }) as z.ZodType<RegisterReply>;
}
