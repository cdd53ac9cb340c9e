import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EMAIL_WORK_CONSUMER,
  consumeNotificationWork,
  identity,
  metricsOf,
  noreplyAddress,
  NotificationRecipients,
  notifications,
  RealmMailContexts,
  retryDelayMs,
  type BusClient,
  type MailTransport,
} from "@teamchat/shared";
import { isMention } from "../user-messages/flags";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { PendingEmailRepository } from "./pending-email.repository";
import { bucketsOf, renderMissedMessageMail } from "./render";
import { topicContextOf, type TopicContextDeps } from "./topic-context";

/** Zulip's REALM_NAME_IN_EMAIL_NOTIFICATIONS_POLICY_ALWAYS (automatic counts one organization per address here). */
const REALM_NAME_ALWAYS = 2;
/** The request id of the mailer's bus calls, in the logs of the services it asks. */
const REQUEST_ID = "missed-message-email";
/**
 * How often sent rows are pruned: the delete reads every row on SecantusDB, so
 * each pass doing it cost more than storing the notices it mails.
 */
const PRUNE_INTERVAL_MS = 10 * 60_000;
/** Users whose batch is mailed per pass. */
const BATCHES_PER_PASS = 20;

interface Deps extends TopicContextDeps {
  nc: NatsConnection;
  bus: BusClient;
  pending: PendingEmailRepository;
  userMessages: UserMessageRepository;
  transport: MailTransport;
  log: Logger;
  /** how often due batches are looked for */
  pollMs: number;
}

/**
 * Zulip's missedmessage_emails worker: takes the notices notifications queued
 * on `notify.email` into the database (acknowledged once stored, so a notice
 * outlives the instance that took it), then mails each user's batch once due:
 * one email per conversation, leaving out messages read or deleted since.
 * Every instance looks for due batches; a lease gives each to one of them,
 * and a failed mailing is tried again after a back-off.
 */
export class MissedMessageMailer {
  private readonly realms: RealmMailContexts;
  private readonly recipients: NotificationRecipients;
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  private consumer: { stop(): Promise<void> } | undefined;
  private prunedAt = 0;

  constructor(private readonly deps: Deps) {
    this.realms = new RealmMailContexts(deps.bus);
    this.recipients = new NotificationRecipients(deps.bus, this.realms);
  }

  async start(): Promise<void> {
    const { nc, log } = this.deps;
    this.consumer = await consumeNotificationWork(
      nc,
      EMAIL_WORK_CONSUMER,
      notifications.missedMessageEmailNotices,
      (item) => this.keep(item),
      log,
    );
    this.timer = setInterval(() => {
      this.pass = this.pass
        .then(() => this.mailDue())
        .catch((err: unknown) => log.error({ err }, "missed-message mail pass failed"));
    }, this.deps.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.consumer?.stop();
    await this.pass;
    this.deps.transport.close();
  }

  private async recipient(realmId: number, userId: number): Promise<identity.NotificationRecipient | undefined> {
    return (await this.recipients.of(realmId, [userId], REQUEST_ID))[0];
  }

  /** A message's notices from the queue: each kept with its user's batch (Zulip's batching period). */
  private async keep(item: notifications.MissedMessageEmailNotices): Promise<void> {
    await Promise.all(
      notifications
        .noticesOf(item)
        .map(({ batchingSeconds, ...notice }) => this.deps.pending.add(notice, batchingSeconds)),
    );
  }

  private async mailDue(): Promise<void> {
    const now = new Date();
    let mailed = 0;
    // users backing off or held by another instance are passed over, not counted
    for (const { realmId, userId } of await this.deps.pending.dueUsers(now, BATCHES_PER_PASS * 10)) {
      if (mailed === BATCHES_PER_PASS) break;
      const failures = await this.deps.pending.lease(realmId, userId, now);
      if (failures === null) continue;
      await this.mailBatch(realmId, userId, failures);
      mailed++;
    }
    if (now.getTime() - this.prunedAt >= PRUNE_INTERVAL_MS) {
      this.prunedAt = now.getTime();
      await this.deps.pending.prune(now);
    }
  }

  /** Zulip's handle_missedmessage_emails for one user. */
  private async mailBatch(realmId: number, userId: number, failures: number): Promise<void> {
    const { pending, userMessages, transport, log } = this.deps;
    const sent = metricsOf(this.deps.nc).mailSent;
    try {
      const notices = await pending.unsent(realmId, userId);
      const user = await this.recipient(realmId, userId);
      if (!user || !user.is_active || user.is_bot || !user.settings.enable_offline_email_notifications) {
        await pending.markDone(
          realmId,
          userId,
          notices.map((n) => n.message.id),
        );
        return await pending.release(realmId, userId);
      }
      // messages read since, or deleted (the user's row is gone), are not mailed
      const flags = await userMessages.flagsOf(
        realmId,
        userId,
        notices.map((n) => n.message.id),
      );
      const unread = notices.filter((n) => flags.has(n.message.id) && !flags.get(n.message.id)!.includes("read"));
      await pending.markDone(
        realmId,
        userId,
        notices.filter((n) => !unread.includes(n)).map((n) => n.message.id),
      );
      const { realm, message_content_allowed_in_email_notifications: realmAllows } = await this.realms.get(
        realmId,
        REQUEST_ID,
      );
      const ctx = {
        realmName: realm.name,
        realmUri: realm.uri,
        showContent: realmAllows && user.settings.message_content_in_email_notifications,
        contentDisabledByRealm: !realmAllows,
        includeRealmName: user.settings.realm_name_in_email_notifications_policy === REALM_NAME_ALWAYS,
      };
      const callCtx = await this.realms.context(realmId, REQUEST_ID);
      for (const bucket of bucketsOf(unread)) {
        const oldest = bucket[0]!.message;
        const others = (oldest.directRecipientIds ?? []).filter((id) => id !== userId);
        const names =
          others.length > 1
            ? [...(await this.deps.users.byIds(callCtx, realmId, others)).values()].map((u) => u.full_name)
            : [];
        // Zulip's handle_missedmessage_emails: when the conversation's oldest message mentions the
        // user (has_any_mentions), the topic's messages leading up to it are shown too
        const context =
          ctx.showContent && isMention(flags.get(oldest.id)!)
            ? (await topicContextOf(this.deps, realmId, userId, oldest, callCtx)).filter(
                (m) => !bucket.some((n) => n.message.id === m.id),
              )
            : [];
        const { subject, text } = renderMissedMessageMail(bucket, ctx, names, context);
        await transport.send({
          to: user.delivery_email,
          from: `Zulip notifications <${noreplyAddress(realm.host)}>`,
          subject,
          text,
          fileName: `missed-message-${realmId}-${userId}-${bucket[0]!.message.id}`,
        });
        sent.inc({ kind: "missed_message", outcome: "sent" });
        await pending.markDone(
          realmId,
          userId,
          bucket.map((n) => n.message.id),
        );
      }
      await pending.release(realmId, userId);
    } catch (err) {
      sent.inc({ kind: "missed_message", outcome: "failed" });
      const delay = retryDelayMs(failures + 1);
      log.warn({ err, realmId, userId, retryInMs: delay }, "missed-message email not sent: tried again later");
      await pending.backOff(realmId, userId, failures + 1, delay);
    }
  }
}
