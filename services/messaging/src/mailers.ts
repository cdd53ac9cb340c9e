import type { NatsConnection } from "@nats-io/transport-node";
import {
  ensureNotificationWorkStream,
  mailTransportFromConfig,
  type BusClient,
  type Config,
  type Connection,
  type Logger,
  type MailTransport,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { ChannelDirectory } from "./channels/channel-directory";
import { DigestMailer } from "./digest/digest-mailer";
import { DigestRepository } from "./digest/digest.repository";
import { DigestSchedule } from "./digest/digest-schedule";
import type { MessageRepository } from "./messages/message.repository";
import { EmailBatchRepository } from "./missed-message-emails/email-batch.repository";
import { EmailNoticeRepository } from "./missed-message-emails/email-notice.repository";
import { MissedMessageMailer } from "./missed-message-emails/missed-message-mailer";
import { PendingEmailRepository } from "./missed-message-emails/pending-email.repository";
import type { SubscriptionDirectory } from "./subscriptions/subscription-directory";
import type { ReadStateRepository } from "./user-messages/read-state.repository";
import type { ReceiverCache } from "./user-messages/receiver-cache";
import type { UserMessageRepository } from "./user-messages/user-message.repository";
import type { UserDirectory } from "./users/user-directory";

/** How often each instance looks for missed-message email batches that are due. */
const MISSED_MESSAGE_POLL_MS = 1000;

/**
 * Messaging's mail: missed-message emails, then the weekly digest. stop() stops
 * the digest, then the missed-message mailer, then closes the transport both use.
 */
export async function startMailers({
  db,
  nc,
  bus,
  config,
  log,
  messages,
  userMessages,
  channels,
  subscriptions,
  userGroups,
  readStates,
  receivers,
  users,
}: {
  db: Connection;
  nc: NatsConnection;
  bus: BusClient;
  config: Config;
  log: Logger;
  messages: MessageRepository;
  userMessages: UserMessageRepository;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  readStates: ReadStateRepository;
  receivers: ReceiverCache;
  users: UserDirectory;
}): Promise<{ stop(): Promise<void> }> {
  // one transport (one SMTP connection pool) for both mailers, closed once both have stopped
  const transport = mailTransportFromConfig(config, log);
  const mailer = await startMissedMessageMailer({
    db,
    nc,
    bus,
    log,
    streamReplicas: config.NATS_STREAM_REPLICAS,
    transport,
    messages,
    userMessages,
    channels,
    subscriptions,
    userGroups,
    readStates,
    receivers,
    users,
  });
  const digest = await startDigest({
    db,
    nc,
    bus,
    log,
    intervalMs: config.DIGEST_CHECK_INTERVAL_SECONDS * 1000,
    transport,
    users,
    channels,
    subscriptions,
    messages,
    readStates,
  });
  return {
    stop: async () => {
      await digest.stop();
      await mailer.stop();
      transport.close();
    },
  };
}

/** What both mailers read of messages, channels and users. */
interface MailSources {
  db: Connection;
  nc: NatsConnection;
  bus: BusClient;
  log: Logger;
  transport: MailTransport;
  messages: MessageRepository;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  readStates: ReadStateRepository;
  users: UserDirectory;
}

async function startMissedMessageMailer(
  deps: MailSources & {
    userMessages: UserMessageRepository;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
    /** NATS_STREAM_REPLICAS, for the notification work stream */
    streamReplicas: number;
  },
): Promise<MissedMessageMailer> {
  const { db, nc } = deps;
  const notices = new EmailNoticeRepository(db);
  const pending = new PendingEmailRepository(db);
  const batches = new EmailBatchRepository(db);
  await Promise.all([notices.init(), pending.init(), batches.init()]);
  await ensureNotificationWorkStream(nc, deps.streamReplicas);
  const mailer = new MissedMessageMailer({
    nc,
    bus: deps.bus,
    notices,
    pending,
    batches,
    userMessages: deps.userMessages,
    readStates: deps.readStates,
    receivers: deps.receivers,
    messages: deps.messages,
    channels: deps.channels,
    subscriptions: deps.subscriptions,
    userGroups: deps.userGroups,
    users: deps.users,
    transport: deps.transport,
    log: deps.log,
    pollMs: MISSED_MESSAGE_POLL_MS,
  });
  await mailer.start();
  return mailer;
}

/**
 * The weekly digest: every instance checks for organizations whose digest day
 * has come and consumes the digests queued (ensureNotificationWorkStream made
 * the consumer with the missed-message mailer's).
 */
async function startDigest(deps: MailSources & { intervalMs: number }): Promise<{ stop(): Promise<void> }> {
  const { db, nc, bus, users, log } = deps;
  const digests = new DigestRepository(db);
  await digests.init();
  const mailer = new DigestMailer({
    nc,
    bus,
    digests,
    transport: deps.transport,
    log,
    users,
    channels: deps.channels,
    subscriptions: deps.subscriptions,
    messages: deps.messages,
    readStates: deps.readStates,
  });
  await mailer.start();
  const schedule = new DigestSchedule({ nc, bus, users, digests, log, intervalMs: deps.intervalMs });
  schedule.start();
  return {
    stop: async () => {
      await schedule.stop();
      await mailer.stop();
    },
  };
}
