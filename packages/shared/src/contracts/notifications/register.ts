import { z } from "zod";
import type { Contract } from "../../contract";
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

const declaresParts = (c: Contract): c is RegisterStateContract => "parts" in c;

/**
 * POST /register's reply: the queue and version fields and the keys of every
 * state part (each optional: a part is there only when the client wants it),
 * nothing else. A service asked through the old `registerState(service)`
 * declares no parts: its keys are unknown here, so while one does, other keys
 * are let through.
 */
export function registerReplySchema(stateContracts: readonly Contract[]): z.ZodType<RegisterReply> {
  const parts: StatePart[] = [longpollState, ...stateContracts.filter(declaresParts).flatMap((c) => c.parts)];
  const reply = z.strictObject({
    ...(Object.assign({}, ...parts.map((p) => p.schema.partial().shape)) as z.ZodRawShape),
    ...queueShape,
  });
  return (stateContracts.every(declaresParts) ? reply : reply.catchall(z.unknown())) as z.ZodType<RegisterReply>;
}
