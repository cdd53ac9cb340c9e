import { Schema } from "mongoose";

export interface SubscriptionDoc {
  realmId: number;
  userId: number;
  streamId: number;
  /** false after unsubscribing (the row stays: Zulip's "unsubscribed" list) */
  active: boolean;
  color: string;
  isMuted: boolean;
  pinToTop: boolean;
}

export const subscriptionSchema = new Schema<SubscriptionDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    streamId: { type: Number, required: true },
    active: { type: Boolean, default: true },
    color: { type: String, required: true },
    isMuted: { type: Boolean, default: false },
    pinToTop: { type: Boolean, default: false },
  },
  { collection: "subscriptions", versionKey: false },
);
// SubscriptionRepository.ofUser / subscribedStreamIds / isSubscribed / add: a user's subscriptions; one row per user and channel
subscriptionSchema.index({ realmId: 1, userId: 1, streamId: 1 }, { unique: true });
// SubscriptionRepository.subscriberIds / subscribersByChannel: a channel's subscribers (message recipients, include_subscribers)
subscriptionSchema.index({ realmId: 1, streamId: 1, active: 1 });
