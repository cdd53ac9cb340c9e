import { flagsOfUser, unreadOfUser } from "../user-messages/message-flags";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EMAIL_WORK_CONSUMER,
  consumeNotificationWork,
  identity,
  listUnsubscribeHeaders,
  metricsOf,
  noreplyAddress,
  NotificationRecipients,
  notifications,
  RealmMailContexts,
  retryDelayMs,
  Coalescer,
  type BusClient,
  type MailTransport,
} from "@teamchat/shared";
import { isMention } from "../user-messages/flags";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { EmailBatchRepository } from "./email-batch.repository";
import { batchNoticesOf, type BatchNotice } from "./batch-notices";
import type { EmailNoticeRepository } from "./email-notice.repository";
import type { PendingEmailRepository } from "./pending-email.repository";
import { bucketsOf, renderMissedMessageMail } from "./render";
import { topicContextOf, type TopicContextDeps } from "./topic-context";

/** Zulip's REALM_NAME_IN_EMAIL_NOTIFICATIONS_POLICY_ALWAYS (automatic counts one organization per address here). */
const REALM_NAME_ALWAYS = 2;
/** The request id of the mailer's bus calls, in the logs of the services it asks. */
const REQUEST_ID = "missed-message-email";
/** How often the items every user is done with are pruned, once a day old. */
const PRUNE_INTERVAL_MS = 10 * 60_000;
/** Users whose batch is mailed per pass. */
const BATCHES_PER_PASS = 20;
/**
 * How long a round of items to store waits for more: a round lists its items
 * with one row per user, which a busy channel's messages then share, and a
 * batch waits minutes anyway.
 */
const STORE_ROUND_MS = 200;

/** A queued item to store, under the id it was queued with. */
interface ItemToKeep {
  id: string;
  item: notifications.MissedMessageEmailNotices;
}

interface Deps extends TopicContextDeps {
  nc: NatsConnection;
  bus: BusClient;
  notices: EmailNoticeRepository;
  pending: PendingEmailRepository;
  batches: EmailBatchRepository;
  userMessages: UserMessageRepository;
  readStates: ReadStateRepository;
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
  private readonly stores = new Coalescer<ItemToKeep, void>((_, items) => this.keepAll(items), STORE_ROUND_MS);

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
      (item, id) => this.stores.run("", { id, item }),
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
  }

  private async recipient(realmId: number, userId: number): Promise<identity.NotificationRecipient | undefined> {
    return (await this.recipients.of(realmId, [userId], REQUEST_ID))[0];
  }

  /**
   * Items from the queue, stored in one round whatever their organization:
   * the items, then a row per user listing the round's items for them, then a
   * batch for each user who has none, due after the batching period the user
   * had when the round's first item for them was decided. A batch removed
   * meanwhile (release) either sees the rows or is made again here.
   */
  private async keepAll(items: ItemToKeep[]): Promise<void[]> {
    const now = new Date();
    await this.deps.notices.insert(items, now);
    const users = new Map<string, { realmId: number; userId: number; itemIds: string[]; scheduledAt: Date }>();
    for (const { id, item } of items) {
      for (const { userId, batchingSeconds } of item.users) {
        const key = `${item.realmId}:${userId}`;
        const known = users.get(key);
        if (known) known.itemIds.push(id);
        else {
          const scheduledAt = new Date(now.getTime() + batchingSeconds * 1000);
          users.set(key, { realmId: item.realmId, userId, itemIds: [id], scheduledAt });
        }
      }
    }
    await this.deps.pending.add(randomUUID(), [...users.values()]);
    await this.deps.batches.schedule([...users.values()]);
    return items.map(() => undefined);
  }

  /**
   * The batch is done: the next item starts a new one. Items stored while it
   * was mailed make a batch due at once (after the removal, so that keepAll()
   * either sees no batch and makes one, or its rows are seen here).
   */
  private async release(realmId: number, userId: number, rowIds: string[]): Promise<void> {
    await this.deps.pending.remove(rowIds);
    await this.deps.batches.remove(realmId, userId);
    if (await this.deps.pending.exists(realmId, userId)) {
      await this.deps.batches.schedule([{ realmId, userId, scheduledAt: new Date() }]);
    }
  }

  private async mailDue(): Promise<void> {
    const now = new Date();
    let mailed = 0;
    // users backing off or held by another instance are passed over, not counted
    for (const { realmId, userId } of await this.deps.batches.dueUsers(now, BATCHES_PER_PASS * 10)) {
      if (mailed === BATCHES_PER_PASS) break;
      const failures = await this.deps.batches.lease(realmId, userId, now);
      if (failures === null) continue;
      await this.mailBatch(realmId, userId, failures);
      mailed++;
    }
    if (now.getTime() - this.prunedAt >= PRUNE_INTERVAL_MS) {
      this.prunedAt = now.getTime();
      await this.deps.notices.prune(now);
    }
  }

  /** Zulip's handle_missedmessage_emails for one user. */
  private async mailBatch(realmId: number, userId: number, failures: number): Promise<void> {
    const { notices: stored, pending, batches, transport, log } = this.deps;
    const sent = metricsOf(this.deps.nc).mailSent;
    const done = (notices: BatchNotice[]) =>
      stored.markDone(
        userId,
        notices.flatMap((n) => n.itemIds),
      );
    try {
      const { rowIds, itemIds } = await pending.ofUser(realmId, userId);
      const notices = batchNoticesOf(realmId, userId, await stored.pendingOf(userId, itemIds));
      const user = await this.recipient(realmId, userId);
      if (!user || !user.is_active || user.is_bot || !user.settings.enable_offline_email_notifications) {
        await done(notices);
        return await this.release(realmId, userId, rowIds);
      }
      // messages read since, or deleted, are not mailed
      const messages = await this.deps.messages.summaries(
        realmId,
        notices.map((n) => n.notice.message.id),
      );
      const stillUnread = new Set(await unreadOfUser(this.deps, realmId, userId, messages));
      const isUnread = ({ notice: { message } }: BatchNotice) => stillUnread.has(message.id);
      await done(notices.filter((n) => !isUnread(n)));
      const unread = notices.filter(isUnread);
      // the mention flags: the rows' and an @all mention's, derived from its message
      const unreadIds = new Set(unread.map((n) => n.notice.message.id));
      const flags = await flagsOfUser(
        this.deps,
        realmId,
        userId,
        messages.filter((m) => unreadIds.has(m.messageId)),
      );
      const entryOf = new Map(unread.map((n) => [n.notice, n]));
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
      let unsubscribeUrl: string | undefined;
      for (const bucket of bucketsOf(unread.map((n) => n.notice))) {
        unsubscribeUrl ??= (
          await this.deps.bus.request(
            identity.getUnsubscribeLink,
            { user_id: userId, email_type: "missed_messages" },
            callCtx,
          )
        ).url;
        const oldest = bucket[0]!.message;
        const others = (oldest.directRecipientIds ?? []).filter((id) => id !== userId);
        const names =
          others.length > 1
            ? [...(await this.deps.users.byIds(callCtx, realmId, others)).values()].map((u) => u.full_name)
            : [];
        // Zulip's handle_missedmessage_emails: when the conversation's oldest message mentions the
        // user (has_any_mentions), the topic's messages leading up to it are shown too
        const context =
          ctx.showContent && isMention(flags.get(oldest.id) ?? [])
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
          headers: listUnsubscribeHeaders(unsubscribeUrl),
          fileName: `missed-message-${realmId}-${userId}-${bucket[0]!.message.id}`,
        });
        sent.inc({ kind: "missed_message", outcome: "sent" });
        await done(bucket.map((n) => entryOf.get(n)!));
      }
      await this.release(realmId, userId, rowIds);
    } catch (err) {
      sent.inc({ kind: "missed_message", outcome: "failed" });
      const delay = retryDelayMs(failures + 1);
      log.warn({ err, realmId, userId, retryInMs: delay }, "missed-message email not sent: tried again later");
      await batches.backOff(realmId, userId, failures + 1, delay);
    }
  }
}
