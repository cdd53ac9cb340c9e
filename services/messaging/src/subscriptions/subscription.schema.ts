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
  /** per-channel notification settings; null = the user's default (Zulip's) */
  desktopNotifications: boolean | null;
  audibleNotifications: boolean | null;
  pushNotifications: boolean | null;
  emailNotifications: boolean | null;
  wildcardMentionsNotify: boolean | null;
}

/** The personal settings POST /users/me/subscriptions/properties changes, by their stored name. */
export type SubscriptionSettings = Pick<
  SubscriptionDoc,
  | "color"
  | "isMuted"
  | "pinToTop"
  | "desktopNotifications"
  | "audibleNotifications"
  | "pushNotifications"
  | "emailNotifications"
  | "wildcardMentionsNotify"
>;

export const subscriptionSchema = new Schema<SubscriptionDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    streamId: { type: Number, required: true },
    active: { type: Boolean, default: true },
    color: { type: String, required: true },
    isMuted: { type: Boolean, default: false },
    pinToTop: { type: Boolean, default: false },
    desktopNotifications: { type: Boolean, default: null },
    audibleNotifications: { type: Boolean, default: null },
    pushNotifications: { type: Boolean, default: null },
    emailNotifications: { type: Boolean, default: null },
    wildcardMentionsNotify: { type: Boolean, default: null },
  },
  { collection: "subscriptions", versionKey: false },
);
// SubscriptionRepository.ofUser / add / remove / setSettings: a user's subscriptions; one row per user and channel
subscriptionSchema.index({ realmId: 1, userId: 1, streamId: 1 }, { unique: true });
// SubscriptionRepository.subscriberIds / subscribersByChannel: a channel's subscribers (message recipients, include_subscribers);
// notifiedOfEveryMessage: those with the channel's email or push notifications on, tested on this prefix's rows
subscriptionSchema.index({ realmId: 1, streamId: 1, active: 1 });
