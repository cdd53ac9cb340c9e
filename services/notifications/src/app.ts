import {
  ensureNotificationWorkStream,
  notifications,
  RealmSettingsCache,
  type RunningService,
  type ServiceDeps,
} from "@teamchat/shared";
import { EventQueueRepository } from "./event-queues/event-queue.repository";
import { EventStore } from "./event-store";
import { consumeDomainEvents } from "./fanout";
import { leadFanout } from "./fanout-leadership";
import { deleteQueueHandler } from "./handlers/delete-queue";
import { getEventsHandler } from "./handlers/get-events";
import { registerQueueHandler } from "./handlers/register-queue";
import { setMessageEditTypingStatusHandler } from "./handlers/set-message-edit-typing-status";
import { setTypingStatusHandler } from "./handlers/set-typing-status";
import { registerNotificationsMetrics } from "./metrics";
import { ParkedPolls } from "./parked-polls";
import { consumeCollectedQueues } from "./missed-messages/collected-queues";
import { consumeMissedMessageDecisions, missedMessageQueueing } from "./missed-messages/missed-message-decisions";
import { PushNotifiedRepository } from "./missed-messages/push-notified.repository";

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildNotifications({
  db,
  nc,
  config,
  log,
  bus,
  events,
  server,
  metrics,
}: ServiceDeps<"notifications">): Promise<RunningService> {
  const queues = new EventQueueRepository(db);
  await queues.init();
  // An event outlives no queue: a queue idle for its lifespan (at most the idle limit) is collected.
  const store = await EventStore.open(queues, events, nc, log, {
    maxAgeSeconds: 2 * config.EVENT_QUEUE_IDLE_SECONDS,
    replicas: config.NATS_STREAM_REPLICAS,
  });
  const parked = new ParkedPolls(nc);
  registerNotificationsMetrics(metrics.registry, parked, queues, log);
  const fanout = await leadFanout(nc, config.NATS_STREAM_REPLICAS, log, () => consumeDomainEvents(nc, store, log));
  const pushNotified = new PushNotifiedRepository(db);
  await pushNotified.init();
  await ensureNotificationWorkStream(nc, config.NATS_STREAM_REPLICAS);
  const decisionDeps = {
    nc,
    bus,
    store,
    pushNotified,
    pushConfigured: config.PUSH_NOTIFICATION_BOUNCER_URL !== undefined,
    log,
  };
  const queueing = missedMessageQueueing(decisionDeps);
  const decisions = await consumeMissedMessageDecisions(decisionDeps, queueing);
  const collectedQueues = await consumeCollectedQueues(decisionDeps, queueing);

  const settings = new RealmSettingsCache(bus, nc, log);
  const defaultLifespanSecs = config.EVENT_QUEUE_IDLE_SECONDS;
  const heartbeatSeconds = config.EVENT_HEARTBEAT_SECONDS;
  server
    .handle(notifications.registerQueue, registerQueueHandler({ store, settings, defaultLifespanSecs }))
    .handle(notifications.getEvents, getEventsHandler({ store, parked, heartbeatSeconds }))
    .handle(notifications.deleteQueue, deleteQueueHandler({ store }))
    .handle(notifications.setTypingStatus, setTypingStatusHandler({ bus, events }))
    .handle(notifications.setMessageEditTypingStatus, setMessageEditTypingStatusHandler({ bus, events }));

  // Zulip collects every minute; sooner when the idle limit is shorter (tests).
  const sweepMs = Math.min(60_000, config.EVENT_QUEUE_IDLE_SECONDS * 500);
  const sweeper = setInterval(() => {
    store.sweep().then(
      (n) => n > 0 && log.info({ collected: n }, "idle event queues collected"),
      (err: unknown) => log.error({ err }, "event queue sweep failed"),
    );
  }, sweepMs);
  sweeper.unref();

  return {
    beforeDrain: () => parked.release(),
    stop: async () => {
      clearInterval(sweeper);
      await collectedQueues.stop();
      await decisions.stop();
      await fanout.stop();
      parked.stop();
      settings.stop();
      store.stop();
    },
  };
}
