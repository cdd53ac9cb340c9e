import { setTimeout as sleep } from "node:timers/promises";
import { ZulipError } from "@teamchat/shared";

/** Pauses before asking a service again for a read it answered 503 (about 2 s in all). */
const READ_RETRY_PAUSES_MS = [200, 600, 1_200];

/**
 * A read that met a service briefly out of reach (503: its database or NATS
 * restarting, no instance subscribed yet) is asked again, a few times, before
 * the client sees the 503: the request's own operation and what every request
 * reads first (its organization, its credentials). Timeouts (504) are not
 * retried: under overload that would add load, nor is a 503 that says when
 * to come back (`retry-after`: a service too busy to serve in time).
 */
export async function retryingRead<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      const retry = err instanceof ZulipError && err.status === 503 && err.extra["retry-after"] === undefined;
      if (!retry || attempt >= READ_RETRY_PAUSES_MS.length + 1) throw err;
      await sleep(READ_RETRY_PAUSES_MS[attempt - 1]!);
    }
  }
}
