import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { isNoResponders } from "@teamchat/shared";

const subjectOf = (instanceId: string) => `messaging.instance.${instanceId}`;
/** A live instance answers at once; a slow answer (a busy instance) still counts as alive. */
const PING_TIMEOUT_MS = 1_000;

/**
 * This messaging instance's name, and whether another named instance still
 * runs: each answers on its own subject while connected, and once it is gone
 * (killed, crashed) NATS has no responder for that subject, at once. So a
 * retry need not wait for the claim of a send whose instance died to age out.
 */
export class InstanceLiveness {
  readonly id = randomUUID();

  /** Answers from now until the connection drains (the instance stops, after finishing its sends). */
  constructor(private readonly nc: NatsConnection) {
    nc.subscribe(subjectOf(this.id), { callback: (_err, msg) => void msg.respond() });
  }

  /** False only when nothing answers to the id: an unanswered ping (timeout) is no proof of death. */
  async isAlive(instanceId: string): Promise<boolean> {
    if (instanceId === this.id) return true;
    try {
      await this.nc.request(subjectOf(instanceId), undefined, { timeout: PING_TIMEOUT_MS });
      return true;
    } catch (err) {
      return !isNoResponders(err);
    }
  }
}
