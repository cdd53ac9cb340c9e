/**
 * What a queue's polls acknowledged, asked when it is collected: the newest of
 * every instance's, whichever instance served the client's last polls and
 * whichever collects the queue.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { AcknowledgedEvents } from "../src/acknowledged-events";

let connections: NatsConnection[];
let instances: AcknowledgedEvents[];
beforeAll(async () => {
  connections = await Promise.all([1, 2, 3].map(() => connect({ servers: process.env.TEST_NATS_URL! })));
  instances = connections.map((nc) => new AcknowledgedEvents(nc));
  // each answers once the server has its subscription, as a running instance has
  await Promise.all(connections.map((nc) => nc.flush()));
});
afterAll(async () => {
  for (const i of instances) i.stop();
  await Promise.all(connections.map((nc) => nc.close()));
});

describe("acknowledged events", () => {
  it("are the newest any instance's polls acknowledged, or the queue document's when newer", async () => {
    const [a, b, c] = instances as [AcknowledgedEvents, AcknowledgedEvents, AcknowledgedEvents];
    a.note("q1", 12);
    b.note("q1", 30);
    a.note("q1", 20);
    // a poll with last_event_id -1 acknowledges nothing
    b.note("q2", -1);
    expect(await c.of("q1", 5)).toBe(30);
    expect(await a.of("q1", 41)).toBe(41);
    expect(await c.of("q2", -1)).toBe(-1);
    expect(await b.of("unknown", 7)).toBe(7);
  });
});
