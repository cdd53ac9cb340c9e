import { databaseName, messaging, messagingEvents, type ParamsIn, type PayloadOf } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import mongoose, { mongo } from "mongoose";
import type { TestOrganization, TestUser } from "../../../test/support/organization";
import type { TestSystem } from "../../../test/support/system";

/** The usual people of messaging's tests: three members (Alice, Bob, Carol) and a guest, made in that order. */
export async function makeCast(org: TestOrganization): Promise<Record<"alice" | "bob" | "carol" | "guest", TestUser>> {
  return {
    alice: await org.makeUser("Alice", 400, "Alice"),
    bob: await org.makeUser("Bob", 400, "Bob"),
    carol: await org.makeUser("Carol", 400, "Carol"),
    guest: await org.makeUser("Guest", 600, "Guest"),
  };
}

/** Creates a channel as `user` through POST /channels/create and returns its id. */
export const createChannel = async (
  org: TestOrganization,
  user: Credentials,
  name: string,
  subscribers: number[],
  extra: Partial<ParamsIn<typeof messaging.createChannel>> = {},
): Promise<number> => (await org.call(messaging.createChannel, { name, subscribers, ...extra }, user)).id;

/** What messaging publishes: a new message, or a client event notifications passes through. */
export type MessageSent = PayloadOf<typeof messagingEvents.messageSent>;
export type MessagingClientEvent =
  PayloadOf<typeof messagingEvents.streamCreated> | PayloadOf<typeof messagingEvents.subscriptionChanged>;

/** A predicate over recorded domain events (recordDomainEvents' marker). */
export type DomainEventPredicate = (event: unknown) => boolean;

/** The messageSent payloads among recorded events. */
export const messageEvents = (recorded: readonly unknown[]): MessageSent[] =>
  recorded.filter((e): e is MessageSent => messagingEvents.messageSent.payload.safeParse(e).success);

/** The client events (stream, subscription) among recorded events. */
export const clientEvents = (recorded: readonly unknown[]): MessagingClientEvent[] =>
  recorded.filter(
    (e): e is MessagingClientEvent =>
      messagingEvents.streamCreated.payload.safeParse(e).success ||
      messagingEvents.subscriptionChanged.payload.safeParse(e).success,
  );

/**
 * One more messaging event, after the writes a test looks at: waiting for it
 * with recorder.before() proves every earlier event has arrived. A direct
 * message of the owner to themself, which no other user sees.
 */
export async function marker(org: TestOrganization): Promise<DomainEventPredicate> {
  const { id } = await org.call(
    messaging.sendMessage,
    { type: "private", to: [org.owner.userId], content: "marker" },
    org.owner,
  );
  return (e) => messageEvents([e]).some((sent) => sent.message.id === id);
}

/**
 * Makes messages look `seconds` older in messaging's database, for the time
 * limits on editing, moving and deleting (no API changes a sent time).
 */
export async function backdateMessages(org: TestOrganization, messageIds: number[], seconds: number): Promise<void> {
  await withMessagingDatabase((db) =>
    db
      .collection("messages")
      .updateMany({ realmId: org.realm.id, messageId: { $in: messageIds } }, { $inc: { timestamp: -seconds } }),
  );
}

/** A connection of the test's own to a private system's messaging database: another instance's view of it. */
export const messagingDatabaseOf = (sys: TestSystem, options: mongoose.ConnectOptions = {}) =>
  mongoose
    .createConnection(sys.config.MONGO_URL!, { ...options, dbName: databaseName(sys.config, "messaging") })
    .asPromise();

/** Runs `use` on messaging's database, for states no API call produces (old rows, an instance that died mid-write). */
export async function withMessagingDatabase<T>(use: (db: mongo.Db) => Promise<T>): Promise<T> {
  const client = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
  try {
    return await use(client.db(`${process.env.TEST_MONGO_DB_PREFIX!}_messaging`));
  } finally {
    await client.close();
  }
}
