import { Schema } from "mongoose";
import type { messaging } from "@teamchat/shared";

/** Zulip's UserTopic: one user's visibility policy (muted, unmuted, followed) for one channel's topic. */
export interface UserTopicDoc {
  realmId: number;
  userId: number;
  streamId: number;
  /** lowercased name: topics compare case-insensitively, as in Zulip */
  topicKey: string;
  /** the name as first given (Zulip keeps it when only the policy changes) */
  topicName: string;
  /** 1 muted, 2 unmuted, 3 followed; "none" (0) is no document */
  visibilityPolicy: messaging.VisibilityPolicy;
  /** UNIX seconds */
  lastUpdated: number;
}

export const userTopicSchema = new Schema<UserTopicDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    streamId: { type: Number, required: true },
    // "" is Zulip's empty topic ("general chat"), which `required` would refuse
    topicKey: { type: String, default: "" },
    topicName: { type: String, default: "" },
    visibilityPolicy: { type: Number, required: true },
    lastUpdated: { type: Number, required: true },
  },
  { collection: "usertopics", versionKey: false },
);
// UserTopicRepository.ofUser (a user's topics in one read: the realmId+userId prefix) and
// set/remove (one row per user, channel and topic, as Zulip's unique (user, stream, lower(topic)))
userTopicSchema.index({ realmId: 1, userId: 1, streamId: 1, topicKey: 1 }, { unique: true });
// UserTopicRepository.followersIn: a channel's followed topics (who a channel message may notify
// without mentioning them, NotificationCandidateCache)
userTopicSchema.index({ realmId: 1, streamId: 1, visibilityPolicy: 1 });
