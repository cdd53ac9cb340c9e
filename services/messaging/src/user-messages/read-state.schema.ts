import { Schema } from "mongoose";
import type { ChannelReadState } from "./read-state";

/** One user's read state in one channel (read-state.ts): one small document, not a row per message. */
export interface ReadStateDoc extends ChannelReadState {
  /** `<realmId>:<userId>:<streamId>`: every write is by key */
  _id: string;
  realmId: number;
  userId: number;
  streamId: number;
  /** raised by every write: a change computed from an older version is computed again (ReadStateRepository.save) */
  version: number;
}

export const readStateId = (realmId: number, userId: number, streamId: number): string =>
  `${realmId}:${userId}:${streamId}`;

export const readStateSchema = new Schema<ReadStateDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    streamId: { type: Number, required: true },
    watermark: { type: Number, required: true },
    exceptions: { type: [Number], default: [] },
    intervals: { type: [Number], default: [] },
    version: { type: Number, required: true },
  },
  { collection: "readstates", versionKey: false },
);
// ReadStateRepository.ofUser (a user's load): one document per channel they were ever subscribed to
readStateSchema.index({ realmId: 1, userId: 1 });
// ReadStateRepository.intervalsIn (ReceiverCache): every member's intervals in a channel
readStateSchema.index({ realmId: 1, streamId: 1 });
