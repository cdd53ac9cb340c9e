import { Schema } from "mongoose";

/** A channel's topic as GET /users/me/{stream_id}/topics lists it: kept at each send, so listing reads only topics. */
export interface TopicDoc {
  realmId: number;
  streamId: number;
  /** lowercased name: topics compare case-insensitively, as in Zulip */
  topicKey: string;
  /** the name as the newest message spells it */
  name: string;
  /** the newest message's id */
  maxId: number;
}

export const topicSchema = new Schema<TopicDoc>(
  {
    realmId: { type: Number, required: true },
    streamId: { type: Number, required: true },
    // "" is Zulip's empty topic ("general chat"), which `required` would refuse
    topicKey: { type: String, default: "" },
    name: { type: String, default: "" },
    maxId: { type: Number, required: true },
  },
  { collection: "topics", versionKey: false },
);
// TopicRepository.ofChannel (a channel's topics) and noteMessage (one row per channel and topic)
topicSchema.index({ realmId: 1, streamId: 1, topicKey: 1 }, { unique: true });
