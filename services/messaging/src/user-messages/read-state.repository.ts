import type { Connection } from "mongoose";
import { TenantRepository, isDuplicateKey } from "@teamchat/shared";
import { emptyReadState, type ChannelReadState } from "./read-state";
import { readStateId, readStateSchema, type ReadStateDoc } from "./read-state.schema";

/** A user's read state in a channel, with the version it was read at (0: none stored yet). */
export interface VersionedReadState {
  streamId: number;
  state: ChannelReadState;
  version: number;
}

/** Tries of a change whose state another write keeps changing: a user's own requests, a few at once at most. */
const MAX_ATTEMPTS = 20;

const versioned = (doc: ReadStateDoc): VersionedReadState => ({
  streamId: doc.streamId,
  // exceptions added by a send ($addToSet) come last: the state is kept ascending
  state: {
    watermark: doc.watermark,
    exceptions: [...doc.exceptions].sort((a, b) => a - b),
    intervals: doc.intervals,
  },
  version: doc.version,
});

/** Users' read states per channel (read-state.ts): what makes a channel message read or unread. */
export class ReadStateRepository extends TenantRepository<ReadStateDoc> {
  constructor(conn: Connection) {
    super(conn.model<ReadStateDoc>("ReadState", readStateSchema));
  }

  /** Every channel's state of the user. */
  async ofUser(realmId: number, userId: number): Promise<VersionedReadState[]> {
    return (await this.find(realmId, { userId })).map(versioned);
  }

  /** The user's state in a channel (an empty one, version 0, when none is stored). */
  async of(realmId: number, userId: number, streamId: number): Promise<VersionedReadState> {
    const [doc] = await this.findByKeys(realmId, [readStateId(realmId, userId, streamId)]);
    return doc ? versioned(doc) : { streamId, state: emptyReadState(), version: 0 };
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
    const _id = readStateId(realmId, userId, streamId);
    const fields = { watermark: state.watermark, exceptions: state.exceptions, intervals: state.intervals };
    if (version === 0) {
      try {
        await this.insertOne({ _id, realmId, userId, streamId, ...fields, version: 1 });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    }
    return (await this.updateOne(realmId, { _id, version }, { $set: fields, $inc: { version: 1 } })) > 0;
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
   * while another write comes in between (optimistic concurrency on `version`).
   */
  async change(
    realmId: number,
    userId: number,
    streamId: number,
    change: (state: ChannelReadState) => ChannelReadState,
  ): Promise<ChannelReadState> {
    for (let attempt = 0; ; attempt++) {
      const { state, version } = await this.of(realmId, userId, streamId);
      const after = change(state);
      if (await this.save(realmId, userId, streamId, after, version)) return after;
      if (attempt >= MAX_ATTEMPTS) throw new Error(`read state of user ${userId} in channel ${streamId} kept changing`);
    }
  }
}
