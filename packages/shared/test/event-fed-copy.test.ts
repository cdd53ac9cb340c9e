/**
 * A service's event-fed copy of another's data (EventFedCopy, ChannelCopy) on
 * a real nats-server and database: a read right after the owner's event sees
 * it; the owner's backfill brings data older than the copy without undoing a
 * later event; events published while the copier is down are applied when it
 * starts again, and what it had applied is still there; the owner backfills
 * once per deployment.
 */
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import {
  CHANNEL_GROUP_SETTINGS,
  ChannelCopy,
  DOMAIN_EVENTS_STREAM,
  DURABLE_CONSUMERS,
  EventPublisher,
  backfillCopiesOnce,
  messagingEvents,
} from "@teamchat/shared";
import type { Connection } from "../src/db";
import { DomainEventsWorld } from "../../../test/support/nats";

jest.setTimeout(60_000);

const log = pino({ level: "silent" });
const REALM = 7;
const NOBODY = 13;

const world = new DomainEventsWorld();
let nc: NatsConnection;
let ownerDb: Connection;
let copierDb: Connection;
let owner: EventPublisher<"messaging">;
const copies: ChannelCopy[] = [];
beforeEach(async () => {
  await world.start();
  nc = world.nc;
  ownerDb = await world.database("copyowner");
  copierDb = await world.database("copier");
  owner = new EventPublisher(nc, "messaging", true, log);
});
afterEach(async () => {
  await Promise.all(copies.splice(0).map((c) => c.stop()));
  await world.stop();
});

const startCopy = async () => {
  const copy = await ChannelCopy.start(nc, copierDb, DURABLE_CONSUMERS.realmConfigChannels, log);
  copies.push(copy);
  return copy;
};
const groups = Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, NOBODY]));
const created = (stream_id: number, invite_only: boolean) => ({
  stream_id,
  invite_only,
  is_archived: false,
  is_web_public: false,
  is_default: false,
  groups,
});
/** A copied channel's facts, without its access-rule accessor. */
const facts = async (read: Promise<unknown>) => {
  const channel = (await read) as Record<string, unknown> | null;
  if (!channel) return null;
  const { groupSetting: _accessor, ...rest } = channel;
  return rest;
};
const changed = (channel: { stream_id: number; invite_only?: boolean; is_archived?: boolean }) =>
  owner.publishAndWait(messagingEvents.channelFacts, { realmId: REALM, channels: [channel] });

test("a read right after the owner's event sees it; changes apply field by field; other organizations see nothing", async () => {
  const copy = await startCopy();
  await owner.publishAndWait(messagingEvents.channelFacts, { realmId: REALM, channels: [created(1, false)] });
  expect(await facts(copy.byId(REALM, 1))).toEqual({
    streamId: 1,
    inviteOnly: false,
    isArchived: false,
    isWebPublic: false,
    isDefault: false,
    groups,
  });
  expect((await copy.byId(REALM, 1))!.groupSetting("can_send_message_group")).toBe(NOBODY);
  await changed({ stream_id: 1, invite_only: true });
  await changed({ stream_id: 1, is_archived: true });
  expect(await copy.byId(REALM, 1)).toMatchObject({ inviteOnly: true, isArchived: true });
  expect(await copy.byId(REALM + 1, 1)).toBeNull();
  expect(await copy.byId(REALM, 2)).toBeNull();
});

test("the owner's backfill brings older channels and never undoes a later event", async () => {
  const copy = await startCopy();
  // the backfill read the owner's database at `asOf`, before this change was published
  const before = (await (await jetstreamManager(nc)).streams.info(DOMAIN_EVENTS_STREAM)).state.last_seq;
  await owner.publishAndWait(messagingEvents.channelFacts, { realmId: REALM, channels: [created(1, false)] });
  await changed({ stream_id: 1, is_archived: true });
  await owner.publishAndWait(messagingEvents.channelFacts, {
    realmId: REALM,
    asOf: before,
    channels: [created(1, false), created(2, true)],
  });
  expect(
    (await copy.all(REALM)).map(({ streamId, inviteOnly, isArchived }) => ({ streamId, inviteOnly, isArchived })),
  ).toEqual([
    { streamId: 1, inviteOnly: false, isArchived: true },
    { streamId: 2, inviteOnly: true, isArchived: false },
  ]);
});

test("after a restart the copy keeps what it had and applies what was published while it was down", async () => {
  const first = await startCopy();
  await owner.publishAndWait(messagingEvents.channelFacts, {
    realmId: REALM,
    channels: [created(1, false), created(2, false)],
  });
  expect(await first.byId(REALM, 2)).not.toBeNull();
  await first.stop();
  copies.splice(copies.indexOf(first), 1);

  await changed({ stream_id: 1, is_archived: true });
  const second = await startCopy();
  expect(await second.byId(REALM, 1)).toMatchObject({ isArchived: true });
  expect(await second.byId(REALM, 2)).toMatchObject({ isArchived: false, inviteOnly: false });
});

test("the owner backfills once per deployment, in batches, with the stream's sequence before its read", async () => {
  await changed({ stream_id: 9, invite_only: true });
  const calls: Array<{ realmId: number; ids: number[]; asOf: number }> = [];
  const backfill = () =>
    backfillCopiesOnce(
      { nc, db: ownerDb, log },
      "test-channels",
      async () => [
        { realmId: 1, id: 10 },
        { realmId: 2, id: 20 },
        { realmId: 1, id: 11 },
        { realmId: 1, id: 12 },
      ],
      async (realmId, records, asOf) => void calls.push({ realmId, ids: records.map((r) => r.id), asOf }),
      2,
    );
  await backfill();
  await backfill();
  // by organization, at most two records an event, and only once
  expect(calls).toEqual([
    { realmId: 1, ids: [10, 11], asOf: 1 },
    { realmId: 1, ids: [12], asOf: 1 },
    { realmId: 2, ids: [20], asOf: 1 },
  ]);
});
