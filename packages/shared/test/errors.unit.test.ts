/** Which failures answer 503 (try again) rather than 500: the database or NATS briefly out of reach. */
import { isTransientFailure } from "@teamchat/shared";

const withCode = (message: string, code: string | number) => Object.assign(new Error(message), { code });

it.each([
  [
    "a write to a socket the stopping database closed",
    withCode("This socket has been ended by the other party", "EPIPE"),
  ],
  ["a reset connection", withCode("read ECONNRESET", "ECONNRESET")],
  ["a refused connection", withCode("connect ECONNREFUSED 127.0.0.1:27017", "ECONNREFUSED")],
  ["a cursor a database restart forgot", withCode("cursor id 7 not found", 43)],
  [
    "the driver's network error as a bulk write's cause",
    new Error("bulk write failed", { cause: Object.assign(new Error("closed"), { name: "MongoNetworkError" }) }),
  ],
  ["NATS without responders", Object.assign(new Error("no responders"), { name: "NoRespondersError" })],
])("%s is transient", (_, err) => {
  expect(isTransientFailure(err)).toBe(true);
});

it.each([
  ["a duplicate key", withCode("E11000 duplicate key error", 11000)],
  ["a programming error", new TypeError("cannot read properties of undefined")],
  ["a file that does not exist", withCode("no such file", "ENOENT")],
])("%s is not", (_, err) => {
  expect(isTransientFailure(err)).toBe(false);
});
