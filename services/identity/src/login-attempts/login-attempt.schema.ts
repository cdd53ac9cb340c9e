import { Schema } from "mongoose";

/** Failed password logins per username and time window (Zulip: 5 per 30 minutes). */
export interface LoginAttemptDoc {
  realmId: number;
  username: string;
  windowStart: number;
  failures: number;
}

export const loginAttemptSchema = new Schema<LoginAttemptDoc>(
  {
    realmId: { type: Number, required: true },
    username: { type: String, required: true },
    windowStart: { type: Number, required: true },
    failures: { type: Number, default: 0 },
  },
  { collection: "login_attempts", versionKey: false },
);
// retryAfter, recordFailure (fetch_api_key): the current window's counter for a username
loginAttemptSchema.index({ realmId: 1, username: 1, windowStart: 1 }, { unique: true });
