import { Schema } from "mongoose";
import type { notifications } from "@teamchat/shared";

/** One event waiting in a queue until the client acknowledges it (last_event_id). */
export interface QueueEventDoc {
  realmId: number;
  queueId: string;
  id: number;
  /** the Zulip event, without its id */
  event: notifications.ClientEvent;
}

export const queueEventSchema = new Schema<QueueEventDoc>(
  {
    realmId: { type: Number, required: true },
    queueId: { type: String, required: true },
    id: { type: Number, required: true },
    event: { type: Schema.Types.Mixed, required: true },
  },
  { collection: "queue_events", versionKey: false, minimize: false },
);
// after, pruneThrough, removeQueue: a queue's events after last_event_id in order (GET /events), those up to it (acknowledgement), all (deletion)
queueEventSchema.index({ realmId: 1, queueId: 1, id: 1 }, { unique: true });
