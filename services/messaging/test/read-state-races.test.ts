/**
 * A client whose long-polls bring messages one after another marks them read in overlapping
 * requests (the bench's soak does, and so does any client that does not wait for its last mark).
 * Each request writes the user's state in the channel at most once, conditioned on the version the
 * instance's copy holds, without reading it first, and the requests that come during a write go
 * together in the next: none is thrown away for a race with the others,
 * which cost the database a read and a write each in bursts it already had queued. A copy that is
 * behind (another instance wrote) is read again, never written over the newer state. Counted from
 * messaging's /metrics, through the HTTP API.
 */
import { messaging } from "@teamchat/shared";
import { counterSum, metricsText } from "../../../test/support/metrics";
import { postToChannel, subscribeToChannel } from "../../../test/support/notified";
import type { TestUser } from "../../../test/support/organization";
import { startSystem, type TestSystem } from "../../../test/support/system";
import type { ChannelReadState } from "../src/user-messages/read-state";
import { ReadStateRepository } from "../src/user-messages/read-state.repository";
import { messagingDatabaseOf } from "./helpers";

it("stores the states of several users and channels that come during a write together, each as its version allows", async () => {
  await subscribeToChannel(sys, "together", [sender, reader]);
  await subscribeToChannel(sys, "together-too", [reader]);
  const id = await postToChannel(sys, sender, "together", "t", "one");
  const otherId = await postToChannel(sys, sender, "together-too", "t", "two");
  const streamIdOf = async (messageId: number) => {
    const { message } = await sys.call(messaging.getMessage, { message_id: messageId }, reader);
    if (message.type !== "stream") throw new Error("expected a channel message");
    return message.stream_id;
  };
  const [together, togetherToo] = [await streamIdOf(id), await streamIdOf(otherId)];
  const conn = await messagingDatabaseOf(sys, { monitorCommands: true });
  const writes: number[] = [];
  conn.getClient().on("commandStarted", (e) => {
    if (e.commandName === "update" && e.command.update === "readstates") writes.push(e.command.updates.length);
  });
  try {
    const states = new ReadStateRepository(conn);
    const realmId = sys.realm.id;
    const copies = await Promise.all([
      states.of(realmId, reader.userId, together),
      states.of(realmId, sender.userId, together),
      states.of(realmId, reader.userId, togetherToo),
    ]);
    // another instance changes the sender's state: this instance's copy of it is behind
    await conn
      .collection<{ _id: string }>("readstates")
      .updateOne(
        { _id: `${realmId}:${sender.userId}:${together}` },
        { $push: { exceptions: -1 }, $inc: { version: 1 } },
      );
    writes.length = 0;
    const markRead = (messageId: number) => (s: ChannelReadState) => ({
      ...s,
      exceptions: [...s.exceptions.filter((e) => e !== messageId), messageId],
    });

    const stored = await Promise.all([
      states.change(realmId, reader.userId, together, markRead(id), copies[0]),
      states.change(realmId, sender.userId, together, markRead(id), copies[1]),
      states.change(realmId, reader.userId, togetherToo, markRead(otherId), copies[2]),
    ]);

    // the first alone, the other two in one command, then the sender's again on the newer version
    expect(writes).toEqual([1, 2, 1]);
    expect(stored.map((s) => s.version)).toEqual([
      copies[0]!.version + 1,
      copies[1]!.version + 2,
      copies[2]!.version + 1,
    ]);
    expect(stored[1]!.state.exceptions).toEqual([...copies[1]!.state.exceptions, -1, id]);
    for (const [i, [userId, streamId]] of [
      [reader.userId, together],
      [sender.userId, together],
      [reader.userId, togetherToo],
    ].entries()) {
      expect(await states.of(realmId, userId!, streamId!)).toEqual(stored[i]);
    }
  } finally {
    await conn.close();
  }
});

let sys: TestSystem;
let sender: TestUser;
let reader: TestUser;
beforeAll(async () => {
  sys = await startSystem({ env: { METRICS_PORT: "0" } });
  sender = await sys.makeUser("sender", 400, "Ada Sender");
  reader = await sys.makeUser("reader", 400, "Grace Reader");
}, 120_000);
afterAll(async () => {
  await sys?.stop();
});

/** messaging's database statements on the read states so far, by command. */
async function readStateStatements(): Promise<{ find: number; update: number }> {
  const text = await metricsText(sys, "messaging");
  const count = (command: string) => counterSum(text, "db_statements_total", { collection: "readstates", command });
  return { find: count("find"), update: count("update") };
}

/** The counts once the sends' own work (notification decisions, which read states too) is done. */
async function settledStatements(): Promise<{ find: number; update: number }> {
  let last = await readStateStatements();
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await readStateStatements();
    if (now.find === last.find && now.update === last.update) return now;
    last = now;
  }
}

/** The channel's newest messages as the reader's client shows them (which loads the reader's states). */
const newestOf = (channel: string) =>
  sys.call(
    messaging.getMessages,
    { anchor: "newest", num_before: 20, num_after: 0, narrow: [{ operator: "channel", operand: channel }] },
    reader,
  );

it("writes a user's state at most once per request, without reading it, when their marks overlap", async () => {
  await subscribeToChannel(sys, "races", [sender, reader]);
  const ids: number[] = [];
  for (let i = 0; i < 12; i++) ids.push(await postToChannel(sys, sender, "races", "overlap", `message ${i}`));
  // the reader's client shows them first
  const page = () => newestOf("races");
  await page();
  const before = await settledStatements();

  const replies = await Promise.all(
    ids.map((id) => sys.call(messaging.updateMessageFlags, { messages: [id], op: "add", flag: "read" }, reader)),
  );

  expect(replies.map((r) => r.messages)).toEqual(ids.map((id) => [id]));
  const after = await readStateStatements();
  // the marks that came during a write went together in the next (how many did depends on timing)
  expect(after.find - before.find).toBe(0);
  expect(after.update - before.update).toBeGreaterThanOrEqual(1);
  expect(after.update - before.update).toBeLessThanOrEqual(ids.length);
  const { messages } = await page();
  expect(messages.filter((m) => ids.includes(m.id)).map((m) => m.flags.includes("read"))).toEqual(ids.map(() => true));
});

it("reads the state again when another writer stored a newer one, and keeps what it stored", async () => {
  await subscribeToChannel(sys, "behind", [sender, reader]);
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) ids.push(await postToChannel(sys, sender, "behind", "copy", `message ${i}`));
  const page = () => newestOf("behind");
  const readOf = (shown: Awaited<ReturnType<typeof page>>["messages"]) =>
    ids.map((id) => shown.find((m) => m.id === id)!.flags.includes("read"));
  const { messages } = await page();
  expect(readOf(messages)).toEqual([false, false, false]);
  // another instance marks the first message read: this instance's copy does not hear of it
  const conn = await messagingDatabaseOf(sys);
  try {
    const first = messages.find((m) => m.id === ids[0]);
    if (first?.type !== "stream") throw new Error("expected a channel message");
    const streamId = first.stream_id;
    const { modifiedCount } = await conn
      .collection<{ _id: string }>("readstates")
      .updateOne(
        { _id: `${sys.realm.id}:${reader.userId}:${streamId}` },
        { $set: { watermark: ids[0]! }, $inc: { version: 1 } },
      );
    expect(modifiedCount).toBe(1);
  } finally {
    await conn.close();
  }
  const before = await settledStatements();

  await sys.call(messaging.updateMessageFlags, { messages: [ids[1]!], op: "add", flag: "read" }, reader);

  const after = await readStateStatements();
  // the write on the copy's version found a newer one: read, then written once more
  expect({ find: after.find - before.find, update: after.update - before.update }).toEqual({ find: 1, update: 2 });
  expect(readOf((await page()).messages)).toEqual([true, true, false]);
});

it("stores the changes that come during a write of a state together, in one write after it", async () => {
  await subscribeToChannel(sys, "grouped", [sender, reader]);
  const ids: number[] = [];
  for (let i = 0; i < 6; i++) ids.push(await postToChannel(sys, sender, "grouped", "burst", `message ${i}`));
  const shown = (await newestOf("grouped")).messages.find((m) => m.id === ids[0]);
  if (shown?.type !== "stream") throw new Error("expected a channel message");
  const conn = await messagingDatabaseOf(sys);
  try {
    // a messaging instance's repository of its own: its changes of one state, all asked at once
    const states = new ReadStateRepository(conn);
    const { version } = await states.of(sys.realm.id, reader.userId, shown.stream_id);
    const stored = await Promise.all(
      ids.map((id) =>
        states.change(sys.realm.id, reader.userId, shown.stream_id, (s) => ({
          ...s,
          exceptions: [...s.exceptions, id],
        })),
      ),
    );
    // the first alone, then the other five together: every caller gets the state with all of them
    expect(stored.map((s) => s.version)).toEqual([version + 1, ...ids.slice(1).map(() => version + 2)]);
    expect(stored.at(-1)!.state.exceptions.slice(-ids.length)).toEqual(ids);
    const now = await states.of(sys.realm.id, reader.userId, shown.stream_id);
    expect(now).toEqual(stored.at(-1));
  } finally {
    await conn.close();
  }
});
