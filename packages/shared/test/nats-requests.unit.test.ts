import { RequestError } from "@nats-io/nats-core";
import { RequestOne } from "@nats-io/nats-core/internal";
import "../src/nats-requests";

/** A RequestOne with only what cancel() touches, recording what its promise is rejected with. */
function request(rejected: unknown[]): RequestOne {
  return Object.assign(Object.create(RequestOne.prototype) as RequestOne, {
    timer: undefined,
    mux: { cancel: () => undefined },
    deferred: { reject: (err: unknown) => rejected.push(err) },
  });
}

it("cancels answered requests with one shared error instead of building one each", () => {
  const rejected: unknown[] = [];
  request(rejected).cancel();
  request(rejected).cancel();
  expect(rejected[0]).toBeInstanceOf(RequestError);
  expect((rejected[0] as Error).message).toBe("cancelled");
  expect(rejected[1]).toBe(rejected[0]);
});

it("still rejects with the cause when a request is cancelled for a reason", () => {
  const rejected: unknown[] = [];
  const cause = new Error("connection closed");
  request(rejected).cancel(cause);
  expect(rejected).toEqual([cause]);
});
