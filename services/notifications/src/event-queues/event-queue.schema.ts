import { Schema } from "mongoose";
import type { z } from "zod";
import type { notificationsEvents } from "@teamchat/shared";

/** One registered event queue, shared by every notifications instance (its fields: notificationsEvents.eventQueue). */
export type EventQueueDoc = z.output<typeof notificationsEvents.eventQueue>;

export const eventQueueSchema = new Schema<EventQueueDoc>(
  {
    realmId: { type: Number, required: true },
    queueId: { type: String, required: true },
    userId: { type: Number, required: true },
    eventTypes: { type: Schema.Types.Mixed, default: null },
    allPublicStreams: { type: Boolean, default: false },
    narrow: { type: Schema.Types.Mixed, default: [] },
    clientGravatar: { type: Boolean, default: true },
    applyMarkdown: { type: Boolean, default: true },
    clientCapabilities: { type: Schema.Types.Mixed, default: {} },
    emptyTopicName: { type: String, default: "" },
    prunedThrough: { type: Number, default: -1 },
    lifespanSecs: { type: Number, required: true },
    lastAccess: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: "event_queues", versionKey: false, minimize: false },
);
// byId, byIds, touch, remove: queues by id (GET/DELETE /events, expiries read again)
eventQueueSchema.index({ realmId: 1, queueId: 1 }, { unique: true });
// ofRealm (fan-out) reads the realmId prefix of the first index
// ofUsers: some users' queues (a collected queue's owner may have another)
eventQueueSchema.index({ realmId: 1, userId: 1 });
// expired, countLive: queues past (or before) their expiry, in every realm (the idle sweep, the live-queue metric)
eventQueueSchema.index({ expiresAt: 1 });
