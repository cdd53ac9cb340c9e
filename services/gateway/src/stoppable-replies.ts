import type { FastifyInstance } from "fastify";
import type { RawJson } from "@teamchat/shared";

/** The forwarded request's reply, or `answer` once the gateway stops. */
export type ReplyUnlessStopping = (forward: () => Promise<RawJson>, answer: object) => Promise<RawJson | object>;

/**
 * Parked long waits are answered at once when the app closes (the contract's
 * answerWhenStopping), so close() does not wait for them. Each wait holds its
 * own release, dropped when it ends: a reaction on one promise for the
 * gateway's stop would keep every request's closure until then.
 */
export function stoppableReplies(app: FastifyInstance): ReplyUnlessStopping {
  let stopping = false;
  const releases = new Set<() => void>();
  app.addHook("preClose", async () => {
    stopping = true;
    releases.forEach((release) => release());
  });
  return async (forward, answer) => {
    if (stopping) return answer;
    let release!: () => void;
    const released = new Promise<object>((resolve) => (release = () => resolve(answer)));
    releases.add(release);
    try {
      return await Promise.race([forward(), released]);
    } finally {
      releases.delete(release);
    }
  };
}
