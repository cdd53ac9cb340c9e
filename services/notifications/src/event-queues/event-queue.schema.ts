import { Schema } from "mongoose";

/** One registered event queue (POST /register), shared by every notifications instance; its events are in JetStream (EventStore). */
export interface EventQueueDoc {
  realmId: number;
  /** uuid, as Zulip's */
  queueId: string;
  userId: number;
  /** null = every type */
  eventTypes: string[] | null;
  allPublicStreams: boolean;
  narrow: string[][];
  clientGravatar: boolean;
  applyMarkdown: boolean;
  /** the register call's client_capabilities (stream_typing_notifications, ...) */
  clientCapabilities: Record<string, unknown>;
  /** the organization's realm_empty_topic_display_name when the client registered: the name clients without the empty_topic_name capability see for the "" topic */
  emptyTopicName: string;
  /** events up to this id were acknowledged and deleted (Zulip's newest_pruned_id) */
  prunedThrough: number;
  lifespanSecs: number;
  lastAccess: Date;
  /** lastAccess + lifespan (+ the wait of a parked poll): the sweep collects queues past it */
  expiresAt: Date;
}

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
