import { randomUUID } from "node:crypto";
import {
  notifications,
  partWanted,
  requireUser,
  type RealmSettingsCache,
  type Handler,
  type RegisterStateParams,
  ZULIP_VERSION,
  ZULIP_FEATURE_LEVEL,
} from "@teamchat/shared";
import type { EventStore } from "../event-store";
import { checkEventNarrow } from "../accepts";

/** Zulip's MAX_QUEUE_TIMEOUT_SECS: the longest lifespan a client may ask for. */
const MAX_QUEUE_LIFESPAN_SECS = 7 * 24 * 60 * 60;

/**
 * POST /register: the queue, and the parameters the gateway asks the state's
 * owners with once it exists (the contract's completedBy), so that no event
 * between the two is lost: the client applies queued events on top of the
 * state. The state does not pass through here: a busy user's is large
 * (docs/adr/0028-replies-as-json-bytes.md).
 */
export const registerQueueHandler =
  ({
    store,
    settings,
    defaultLifespanSecs,
  }: {
    store: EventStore;
    settings: RealmSettingsCache;
    /** a queue's lifespan when the client does not ask for one (EVENT_QUEUE_IDLE_SECONDS) */
    defaultLifespanSecs: number;
  }): Handler<typeof notifications.registerQueue> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    checkEventNarrow(p.narrow);
    const now = Date.now();
    const lifespanSecs = Math.min(p.queue_lifespan_secs || defaultLifespanSecs, MAX_QUEUE_LIFESPAN_SECS);
    // what this client is told the empty topic is called, for its message events
    const { realm_empty_topic_display_name } = await settings.get(ctx);
    const queue = {
      realmId: realm.id,
      queueId: randomUUID(),
      userId: actor.userId,
      eventTypes: p.event_types,
      allPublicStreams: p.all_public_streams,
      narrow: p.narrow,
      clientGravatar: p.client_gravatar,
      applyMarkdown: p.apply_markdown,
      clientCapabilities: p.client_capabilities,
      emptyTopicName: realm_empty_topic_display_name,
      prunedThrough: -1,
      lifespanSecs,
      lastAccess: new Date(now),
      expiresAt: new Date(now + lifespanSecs * 1000),
    };
    await store.create(queue);
    const stateParams: RegisterStateParams = {
      fetch_event_types: p.fetch_event_types === undefined ? p.event_types : p.fetch_event_types,
      client_gravatar: p.client_gravatar,
      include_subscribers: p.include_subscribers,
      slim_presence: p.slim_presence,
      client_capabilities: p.client_capabilities,
    };
    return {
      zulip_version: ZULIP_VERSION,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      ...(partWanted(notifications.longpollState, stateParams) && {
        event_queue_longpoll_timeout_seconds: notifications.getEvents.timeoutMs! / 1000,
      }),
      queue_id: queue.queueId,
      last_event_id: -1,
      completion: { params: stateParams, undo: { queue_id: queue.queueId } },
    };
  };
