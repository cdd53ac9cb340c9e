import type { Connection } from "mongoose";
import { Coalescer, TenantRepository, documentFailures, isDuplicateKey } from "@teamchat/shared";
import { OPEN, emptyReadState, opened, storedState, type ChannelReadState } from "./read-state";
import { readStateId, readStateSchema, type ReadStateDoc } from "./read-state.schema";

/** A user's read state in a channel, with the version it was read at (0: none stored yet). */
export interface VersionedReadState {
  streamId: number;
  state: ChannelReadState;
  version: number;
}

/** A read state with the version it was stored at, as the flags event carries it. */
export type StoredReadState = ChannelReadState & { version: number };

export const asStored = ({ state, version }: VersionedReadState): StoredReadState => ({ ...state, version });

type Change = (state: ChannelReadState) => ChannelReadState;

/** A state computed from `version`, to store unless another write came in between. */
interface ConditionalWrite {
  userId: number;
  streamId: number;
  fields: ChannelReadState;
  version: number;
}

/** A write of one state under way, and the changes waiting to be stored together after it. */
interface StateWrite {
  stored: Promise<VersionedReadState>;
  next?: { changes: Change[]; stored: Promise<VersionedReadState> };
}

/** Tries of a change whose state another write keeps changing: a user's own requests, a few at once at most. */
const MAX_ATTEMPTS = 20;
/** Upserts per bulk command (upsertByKeys). */
const BULK = 1000;

const versioned = (doc: ReadStateDoc): VersionedReadState => ({
  streamId: doc.streamId,
  state: storedState(doc),
  version: doc.version,
});

/** Users' read states per channel (read-state.ts): what makes a channel message read or unread. */
export class ReadStateRepository extends TenantRepository<ReadStateDoc> {
  /**
   * The write of each state under way on this instance, by id, with the changes that came meanwhile:
   * they wait for it, then are stored together in one write instead of racing it or one after
   * another. A client whose long-polls bring messages one after another marks them read in
   * overlapping requests, and each race cost a read and a write thrown away, when a burst of them
   * already had the database queued (docs/adr/0052-read-state-per-channel.md).
   */
  private readonly changing = new Map<string, StateWrite>();

  /**
   * The conditional writes of an organization's states (other users', other channels') that come
   * while one is under way, stored in one command after it: 25 members marking one message read
   * at once are 25 writes of 25 states, which SecantusDB takes one after another, and a bulk write
   * costs it about half as much per state (docs/adr/0052-read-state-per-channel.md).
   */
  private readonly writes = new Coalescer<ConditionalWrite, boolean>((realmId, writes) =>
    this.writeAll(Number(realmId), writes),
  );

  constructor(private readonly conn: Connection) {
    super(conn.model<ReadStateDoc>("ReadState", readStateSchema));
  }

  /** Upserts by key in one command: a migration's or an import's many states, each keyed by the realm's id. */
  private async upsertByKeys(
    realmId: number,
    updates: Array<{ userId: number; streamId: number; update: Record<string, unknown> }>,
  ): Promise<void> {
    for (let i = 0; i < updates.length; i += BULK) {
      await this.conn.collection<ReadStateDoc>("readstates").bulkWrite(
        updates.slice(i, i + BULK).map(({ userId, streamId, update }) => ({
          updateOne: { filter: { _id: readStateId(realmId, userId, streamId) }, update, upsert: true },
        })),
        { ordered: false },
      );
    }
  }

  /**
   * A state for each of these subscriptions that has none yet, subscribed
   * after message `after` and with everything up to it read: what the users
   * had received before is read unless an exception says otherwise
   * (addExceptions). A state already there is kept, so running it again
   * changes nothing.
   */
  openWhereMissing(realmId: number, pairs: Array<{ userId: number; streamId: number }>, after: number): Promise<void> {
    return this.upsertByKeys(
      realmId,
      pairs.map(({ userId, streamId }) => ({
        userId,
        streamId,
        update: {
          $setOnInsert: {
            realmId,
            userId,
            streamId,
            watermark: after,
            exceptions: [],
            intervals: [after, OPEN],
            version: 1,
          },
        },
      })),
    );
  }

  /**
   * Adds these messages, at or below the watermark, as exceptions (unread
   * there) to each user's state in the channel. A user with no state gets
   * one with `watermark` and no subscription (they had left the channel).
   * Only the messages not there yet are added, read first: an `$addToSet`
   * compares each one with the whole list on SecantusDB, whose cost grew with
   * the square of a user's unread messages (a migration of 100,000 rows spent
   * 34 s on it, against 0.8 s so). Adding the same again changes nothing; two
   * passes at once can list one twice, which changes no message's state.
   */
  async addExceptions(
    realmId: number,
    entries: Array<{ userId: number; streamId: number; ids: number[] }>,
    watermark: number,
  ): Promise<void> {
    const stored = await this.findByKeys(
      realmId,
      entries.map((e) => readStateId(realmId, e.userId, e.streamId)),
      { _id: 1, exceptions: 1 },
    );
    const held = new Map(stored.map((d) => [d._id, new Set(d.exceptions)]));
    const updates = entries.flatMap(({ userId, streamId, ids }) => {
      const known = held.get(readStateId(realmId, userId, streamId));
      const added = known ? ids.filter((id) => !known.has(id)) : ids;
      if (known && !added.length) return [];
      const update = {
        $setOnInsert: { realmId, userId, streamId, watermark, intervals: [] },
        $push: { exceptions: { $each: added } },
        $inc: { version: 1 },
      };
      return [{ userId, streamId, update }];
    });
    await this.upsertByKeys(realmId, updates);
  }

  /**
   * Imported history in a channel: each user's watermark raised to `newest`,
   * the channel's newest imported message, with their unread messages up to
   * it as exceptions. A user with no state (not subscribed: the subscribed
   * got theirs with the channel, openWhereMissing) gets one without a
   * subscription.
   */
  raiseImported(
    realmId: number,
    streamId: number,
    newest: number,
    entries: Array<{ userId: number; unread: number[] }>,
  ): Promise<void> {
    return this.upsertByKeys(
      realmId,
      entries.map(({ userId, unread }) => ({
        userId,
        streamId,
        update: {
          $setOnInsert: { realmId, userId, streamId, intervals: [] },
          $max: { watermark: newest },
          // new messages: none of them is there yet
          $push: { exceptions: { $each: unread } },
          $inc: { version: 1 },
        },
      })),
    );
  }

  /** Every channel's state of the user. */
  async ofUser(realmId: number, userId: number): Promise<VersionedReadState[]> {
    return (await this.findOfUser(realmId, "userId", userId)).map(versioned);
  }

  /** The user's subscription intervals per channel: which messages received by subscription they received. */
  async received(realmId: number, userId: number): Promise<Map<number, number[]>> {
    const docs = await this.find(realmId, { userId }, { projection: { streamId: 1, intervals: 1 } });
    return new Map(docs.map((d) => [d.streamId, d.intervals]));
  }

  /** The user's state in a channel (an empty one, version 0, when none is stored). */
  async of(realmId: number, userId: number, streamId: number): Promise<VersionedReadState> {
    const [doc] = await this.findByKeys(realmId, [readStateId(realmId, userId, streamId)]);
    return doc ? versioned(doc) : { streamId, state: emptyReadState(), version: 0 };
  }

  /** Every user's subscription intervals in a channel, by user id: who received its messages (ReceiverCache). */
  async intervalsIn(realmId: number, streamId: number): Promise<Map<number, number[]>> {
    const docs = await this.find(realmId, { streamId }, { projection: { userId: 1, intervals: 1 } });
    return new Map(docs.map((d) => [d.userId, d.intervals]));
  }

  /** These users' states in one channel, by user id (absent: none stored). */
  async ofUsers(realmId: number, streamId: number, userIds: number[]): Promise<Map<number, VersionedReadState>> {
    const docs = await this.findByKeys(
      realmId,
      userIds.map((u) => readStateId(realmId, u, streamId)),
    );
    return new Map(docs.map((d) => [d.userId, versioned(d)]));
  }

  /**
   * Opens a subscription after message `after` in each of these users' states
   * (read-state.ts's opened): the states there are none of yet in one write,
   * a state of an earlier subscription reopened.
   */
  async open(realmId: number, pairs: Array<{ userId: number; streamId: number }>, after: number): Promise<void> {
    const keyOf = (p: { userId: number; streamId: number }) => readStateId(realmId, p.userId, p.streamId);
    const existing = new Set((await this.findByKeys(realmId, pairs.map(keyOf))).map((d) => d._id));
    await this.openWhereMissing(
      realmId,
      pairs.filter((p) => !existing.has(keyOf(p))),
      after,
    );
    for (const p of pairs.filter((p) => existing.has(keyOf(p)))) {
      await this.change(realmId, p.userId, p.streamId, (s) => opened(s, after));
    }
  }

  /**
   * Stores the state computed from `version`; false when another write came
   * in between (the caller reads again and computes again).
   */
  async save(
    realmId: number,
    userId: number,
    streamId: number,
    state: ChannelReadState,
    version: number,
  ): Promise<boolean> {
    const fields = { watermark: state.watermark, exceptions: state.exceptions, intervals: state.intervals };
    if (version === 0) {
      try {
        await this.insertOne({
          _id: readStateId(realmId, userId, streamId),
          realmId,
          userId,
          streamId,
          ...fields,
          version: 1,
        });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    }
    return this.writes.run(String(realmId), { userId, streamId, fields, version });
  }

  /**
   * Stores each state unless its version changed; whether each was stored. An
   * upsert on the state's id and version: a newer version fails its insert on
   * the id (the duplicate key error names the write), where an update that
   * matched nothing could not tell which of the command's writes it was. A
   * state deleted meanwhile is stored again, as a write after reading it would.
   */
  private async writeAll(realmId: number, writes: ConditionalWrite[]): Promise<boolean[]> {
    try {
      await this.conn.collection<ReadStateDoc>("readstates").bulkWrite(
        writes.map(({ userId, streamId, fields, version }) => ({
          updateOne: {
            filter: { _id: readStateId(realmId, userId, streamId), realmId, version },
            update: { $set: fields, $inc: { version: 1 }, $setOnInsert: { userId, streamId } },
            upsert: true,
          },
        })),
        { ordered: false },
      );
      return writes.map(() => true);
    } catch (err) {
      const failures = documentFailures(err);
      if (!failures?.every((f) => f.code === 11000)) throw err;
      const newer = new Set(failures.map((f) => f.index));
      return writes.map((_, i) => !newer.has(i));
    }
  }

  /**
   * A new message that differs for these users from the default: read for
   * those who muted its sender or whom Zulip's limit_unread_user_ids leaves
   * out, unread for a sender who asked (read_by_sender=false). An exception
   * added without reading their states, as a send must not.
   */
  async flip(realmId: number, streamId: number, userIds: number[], messageId: number): Promise<void> {
    await this.updateByKeys(
      realmId,
      userIds.map((u) => readStateId(realmId, u, streamId)),
      { $addToSet: { exceptions: messageId }, $inc: { version: 1 } },
    );
  }

  /**
   * Applies `change` to the user's state in a channel, read and written again
   * while another write comes in between (optimistic concurrency on `version`:
   * another instance's, or a send's flip); one write at a time per state on
   * this instance, the changes that come during one stored together in the
   * next. Returns the state stored (with the changes stored with this one) and
   * its version.
   *
   * `known`: the state as this instance's copy holds it with the version it was
   * stored at (PersonalIndex), tried first without reading it: a version is
   * never stored twice, so a write conditioned on it succeeds only if the
   * stored state is that one. A mark-read then costs one command, not two
   * (docs/adr/0052-read-state-per-channel.md).
   */
  change(
    realmId: number,
    userId: number,
    streamId: number,
    change: Change,
    known?: VersionedReadState,
  ): Promise<VersionedReadState> {
    const key = readStateId(realmId, userId, streamId);
    const under = this.changing.get(key);
    if (!under) return this.write(key, () => this.changeNow(realmId, userId, streamId, change, known));
    if (!under.next) {
      // after the write under way, what it stored is newer than any caller's copy
      const changes: Change[] = [];
      const start = (stored: VersionedReadState | undefined) =>
        this.write(key, () =>
          this.changeNow(realmId, userId, streamId, (s) => changes.reduce((state, c) => c(state), s), stored),
        );
      under.next = { changes, stored: under.stored.then(start, () => start(undefined)) };
    }
    under.next.changes.push(change);
    return under.next.stored;
  }

  /** Starts a write as the state's one under way: the changes that come meanwhile wait to go together after it. */
  private write(key: string, store: () => Promise<VersionedReadState>): Promise<VersionedReadState> {
    const write: StateWrite = { stored: store() };
    this.changing.set(key, write);
    const done = () => {
      // the changes waiting for it start next, in its place
      if (this.changing.get(key) === write && !write.next) this.changing.delete(key);
    };
    write.stored.then(done, done);
    return write.stored;
  }

  private async changeNow(
    realmId: number,
    userId: number,
    streamId: number,
    change: Change,
    known: VersionedReadState | undefined,
  ): Promise<VersionedReadState> {
    for (let attempt = 0; ; attempt++) {
      const { state, version } = attempt === 0 && known ? known : await this.of(realmId, userId, streamId);
      const after = change(state);
      if (await this.save(realmId, userId, streamId, after, version))
        return { streamId, state: after, version: version + 1 };
      if (attempt >= MAX_ATTEMPTS) throw new Error(`read state of user ${userId} in channel ${streamId} kept changing`);
    }
  }
}
