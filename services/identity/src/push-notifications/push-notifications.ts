import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";
import type { Connection } from "mongoose";
import type { Logger } from "pino";
import {
  notifications,
  realmConfig,
  type BusClient,
  type Config,
  type EventPublisher,
  type ServiceMetrics,
} from "@teamchat/shared";
import type { PushDeviceRepository } from "../push-devices/push-device.repository";
import type { PushDeviceTokenRepository } from "../push-devices/push-device-token.repository";
import type { UserDirectory } from "../users/user-directory";
import { PushBouncer } from "./bouncer";
import { PushMetrics } from "./push-metrics";
import { PushNotifier } from "./push-notifier";
import { PUSH_WORK_ACK_WAIT_MS, consumePushWork } from "./push-work";
import { SentPushRepository } from "./sent-push.repository";

export interface PushNotifications {
  notifier: PushNotifier;
  /** Queues an E2EE registration for the bouncer (durably: it is forwarded even if this instance dies). */
  queueRegistration(notice: notifications.PushRegistrationNotice): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Mobile push through the push notification service, when the server is
 * registered with one (PUSH_NOTIFICATION_BOUNCER_URL, ZULIP_ORG_ID,
 * ZULIP_ORG_KEY): the notifier the API's handlers use and the consumer of the
 * push work queue. Undefined otherwise: push is not configured.
 */
export async function startPushNotifications(deps: {
  db: Connection;
  nc: NatsConnection;
  bus: BusClient;
  config: Config;
  log: Logger;
  metrics: ServiceMetrics;
  events: EventPublisher<"identity">;
  pushDevices: PushDeviceRepository;
  pushTokens: PushDeviceTokenRepository;
  users: UserDirectory;
}): Promise<PushNotifications | undefined> {
  const { config, nc, bus, log } = deps;
  const url = config.PUSH_NOTIFICATION_BOUNCER_URL;
  if (!url) return undefined;
  if (!config.ZULIP_ORG_ID || !config.ZULIP_ORG_KEY) {
    throw new Error("PUSH_NOTIFICATION_BOUNCER_URL needs the server's registration: ZULIP_ORG_ID and ZULIP_ORG_KEY");
  }
  const metrics = new PushMetrics(deps.metrics.registry);
  const bouncer = new PushBouncer(
    { url, orgId: config.ZULIP_ORG_ID, orgKey: config.ZULIP_ORG_KEY },
    metrics.bouncerRequest,
  );
  const sent = new SentPushRepository(deps.db);
  await sent.init();
  const notifier = new PushNotifier({
    bouncer,
    sent,
    pushDevices: deps.pushDevices,
    pushTokens: deps.pushTokens,
    users: deps.users,
    events: deps.events,
    claimLeaseMs: PUSH_WORK_ACK_WAIT_MS,
    listRealms: () => bus.request(realmConfig.listRealms, {}, { realm: null, actor: null, requestId: randomUUID() }),
    realmOf: (realmId) =>
      bus.request(realmConfig.realmById, { realm_id: realmId }, { realm: null, actor: null, requestId: randomUUID() }),
    log,
  });
  // as Zulip's push worker does at its start (initialize_push_notifications); again whenever the bouncer misses one
  void notifier.uploadRealms().catch((err: unknown) => log.warn({ err }, "organizations not uploaded to the bouncer"));
  const consumer = await consumePushWork(nc, notifier, metrics, config.NATS_STREAM_REPLICAS, log);
  const js = jetstream(nc);
  return {
    notifier,
    queueRegistration: async (notice) => {
      await js.publish(notifications.PUSH_REGISTRATION_SUBJECT, JSON.stringify(notice));
    },
    stop: () => consumer.stop(),
  };
}
