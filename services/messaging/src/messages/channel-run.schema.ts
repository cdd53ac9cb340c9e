import { Schema, type Types } from "mongoose";

/** A channel message as ChannelMessageCache holds it: and whether it mentions its channel (MessageDoc.streamWildcard). */
export type ChannelEntry = { messageId: number; senderId: number; topic: string; streamWildcard?: true };

/**
 * A run of a channel's messages as ChannelMessageCache holds them (id, sender,
 * topic, a channel-wide wildcard mention), in parallel arrays in no particular order: a restart reads a
 * channel's few runs instead of a row per message. Every message sent, moved
 * in, edited or deleted changes its run as it changes (ChannelRunRepository).
 */
export interface ChannelRunDoc {
  _id?: Types.ObjectId;
  realmId: number;
  streamId: number;
  /**
   * Every message of the channel above it is in some run of the channel: the
   * runs hold the channel's messages above the least `since` of its runs (the
   * id below the first message sent once runs were kept, or the floor of a
   * load that stored what it read).
   */
  since: number;
  /** the lowest and highest id the run ever held: a load above an id reads the runs whose maxId is above it */
  minId: number;
  maxId: number;
  /** how many entries the run holds: sends append to a run of fewer than RUN_SIZE */
  count: number;
  ids: number[];
  senders: number[];
  topics: string[];
  /**
   * The ids among `ids` of the messages that mention their whole channel
   * (MessageDoc.streamWildcard): few, so listed rather than a flag per entry.
   * Absent from runs written before it was kept, which hold no such message.
   */
  wildcards?: number[];
  /** raised by every write: an edit rewritten from an older version is computed again */
  version: number;
}

export const channelRunSchema = new Schema<ChannelRunDoc>(
  {
    realmId: { type: Number, required: true },
    streamId: { type: Number, required: true },
    since: { type: Number, required: true },
    minId: { type: Number, required: true },
    maxId: { type: Number, required: true },
    count: { type: Number, required: true },
    ids: { type: [Number], default: [] },
    senders: { type: [Number], default: [] },
    // "" is Zulip's empty topic ("general chat")
    topics: { type: [String], default: [] },
    wildcards: { type: [Number], default: [] },
    version: { type: Number, required: true },
  },
  { collection: "channel_message_runs", versionKey: false },
);
// ChannelRunRepository.above (a channel's load) and rewrite (the runs spanning moved or deleted
// messages). No index on `ids`: one entry per message, all rewritten with their run at every send,
// made an append cost the embedded database 12 ms instead of 2.
channelRunSchema.index({ realmId: 1, streamId: 1, maxId: 1 });
// ChannelRunRepository.append: the channel's runs with room, not every run of its history
channelRunSchema.index({ realmId: 1, streamId: 1, count: 1 });
