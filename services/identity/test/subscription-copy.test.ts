/**
 * identity's copy of messaging's subscriptions (SubscriptionCopy) on a real
 * nats-server and database, fed by published subscription_facts events:
 * subscribing and unsubscribing, messaging's backfill under a later change,
 * and a restart with events published while the copy was down.
 */
import type { NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import { EventPublisher, messagingEvents, type Connection } from "@teamchat/shared";
import { SubscriptionCopy } from "../src/subscriptions/subscription-copy";
import { DomainEventsWorld } from "../../../test/support/nats";

jest.setTimeout(60_000);

const log = pino({ level: "silent" });
const REALM = 5;

const world = new DomainEventsWorld();
let nc: NatsConnection;
let db: Connection;
let messaging: EventPublisher<"messaging">;
let copy: SubscriptionCopy | undefined;
beforeEach(async () => {
  await world.start();
  nc = world.nc;
  db = await world.database("subscopy");
  messaging = new EventPublisher(nc, "messaging", true, log);
});
afterEach(async () => {
  await copy?.stop();
  copy = undefined;
  await world.stop();
});

const facts = (subscribed: boolean, pairs: Array<[user: number, stream: number]>, asOf?: number) =>
  messaging.publishAndWait(messagingEvents.subscriptionFacts, {
    realmId: REALM,
    subscribed,
    pairs: pairs.map(([user_id, stream_id]) => ({ user_id, stream_id })),
    ...(asOf === undefined ? {} : { asOf }),
  });

test("a read right after messaging's event sees the user's subscriptions", async () => {
  copy = await SubscriptionCopy.start(nc, db, log);
  await facts(true, [
    [1, 10],
    [1, 11],
    [2, 10],
  ]);
  await facts(false, [[1, 10]]);
  expect([...(await copy.subscribedStreamIds(REALM, 1))]).toEqual([11]);
  expect([...(await copy.subscribedStreamIds(REALM, 2))]).toEqual([10]);
  expect([...(await copy.subscribedStreamIds(REALM + 1, 1))]).toEqual([]);
});

test("messaging's backfill brings older subscriptions without undoing a later change; a restart keeps everything", async () => {
  copy = await SubscriptionCopy.start(nc, db, log);
  await facts(true, [[1, 10]]);
  await copy.stop();
  copy = undefined;
  // while identity is down: user 1 leaves channel 10, then the backfill read before that arrives
  await facts(false, [[1, 10]]);
  await facts(
    true,
    [
      [1, 10],
      [1, 12],
    ],
    1,
  );
  copy = await SubscriptionCopy.start(nc, db, log);
  expect([...(await copy.subscribedStreamIds(REALM, 1))]).toEqual([12]);
});
