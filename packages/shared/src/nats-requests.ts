import { RequestError } from "@nats-io/nats-core";
import { RequestOne } from "@nats-io/nats-core/internal";

/**
 * nats.js (3.4) calls `RequestOne.cancel()` after every answered request too, and
 * that builds a new RequestError, stack trace included, only to reject a promise
 * already resolved: ~3 µs and garbage per request, 7 % of notifications' CPU
 * while it delivers events (every append and read of an event queue is a
 * request). A request cancelled for real (its connection closing) is rejected
 * with one shared RequestError("cancelled") instead: the same type and message,
 * without a stack of its own.
 */
const CANCELLED = new RequestError("cancelled");
const cancel = RequestOne.prototype.cancel;
RequestOne.prototype.cancel = function (this: RequestOne, err?: Error): void {
  cancel.call(this, err ?? CANCELLED);
};
