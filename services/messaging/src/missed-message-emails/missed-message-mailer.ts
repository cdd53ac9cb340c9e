import { setTimeout as sleep } from "node:timers/promises";
import { flagSourcesOf, flagsIn, unreadIn } from "../user-messages/message-flags";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
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
import { batchNoticesOf, listsItem } from "./batch-notices";
import type { EmailNoticeDoc, EmailNoticeRepository } from "./email-notice.repository";
import {
  pendingNoticeOf,
  roundKey,
  type PendingEmailRepository,
  type PendingNotice,
  type PendingRow,
} from "./pending-email.repository";
import { bucketsOf, renderMissedMessageMail } from "./render";
import { topicContextOf, type TopicContextDeps } from "./topic-context";

/** Zulip's REALM_NAME_IN_EMAIL_NOTIFICATIONS_POLICY_ALWAYS (automatic counts one organization per address here). */
const REALM_NAME_ALWAYS = 2;
/** The request id of the mailer's bus calls, in the logs of the services it asks. */
const REQUEST_ID = "missed-message-email";
/** How often the items a day old are pruned. */
const PRUNE_INTERVAL_MS = 10 * 60_000;
/**
 * How long an item is kept after its store: a delivery of it again within
 * this finds it stored, so that its users are not mailed twice. Items that
 * rows still list are kept longer (a long batching period, a mail server down).
 */
const KEEP_ITEMS_MS = 24 * 3600_000;
/**
 * A round stores its rows before its items: a row met before its round's
 * items are stored is left to a batch due this much later...
 */
const ROUND_STORE_WAIT_MS = 1000;
/**
 * ...unless its round began this long ago: that round failed, JetStream
 * delivers its items again, and the round that stores them lists them.
 */
const ROUND_STORE_GIVEN_UP_MS = 5 * 60_000;
/** Users whose batch is mailed per pass. */
const BATCHES_PER_PASS = 20;
/**
 * How long a round of items to store waits for more: a round lists its items
 * with one row per user, which a busy channel's messages then share, and
 * which the user's batch reads and deletes.
 */
const STORE_ROUND_MS = 200;
/**
 * A round whose users all batch for PATIENT_BATCHING_SECONDS or more (Zulip's
 * default is 120 s) waits this long, a sixth of that at most: where every
 * message mentions everyone, each user's 2-minute batch then reads and deletes
 * about 12 rows instead of one per message or two, for mail a few seconds later.
 * Well within the work stream's ack wait (30 s).
 */
const PATIENT_STORE_ROUND_MS = 10_000;
const PATIENT_BATCHING_SECONDS = 60;

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
  /** a pass under way: the ticks meanwhile start none (a paced pass may outlast several) */
  private passing = false;
  private consumer: { stop(): Promise<void> } | undefined;
  private prunedAt = 0;
  private readonly stores = new Coalescer<ItemToKeep, void>((_, items) => this.keepAll(items), STORE_ROUND_MS);
  private readonly patientStores = new Coalescer<ItemToKeep, void>(
    (_, items) => this.keepAll(items),
    PATIENT_STORE_ROUND_MS,
  );

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
      (item, id) => this.storesFor(item).run("", { id, item }),
      log,
    );
    this.timer = setInterval(() => {
      if (this.passing) return;
      this.passing = true;
      this.pass = this.mailDue()
        .catch((err: unknown) => log.error({ err }, "missed-message mail pass failed"))
        .finally(() => (this.passing = false));
    }, this.deps.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    // the items taken are stored and acknowledged now rather than handed back when the stop's grace ends
    const consuming = this.consumer?.stop();
    this.patientStores.flush();
    await consuming;
    await this.pass;
  }

  private storesFor(item: notifications.MissedMessageEmailNotices): Coalescer<ItemToKeep, void> {
    return item.users.every((u) => u.batchingSeconds >= PATIENT_BATCHING_SECONDS) ? this.patientStores : this.stores;
  }

  private async recipient(realmId: number, userId: number): Promise<identity.NotificationRecipient | undefined> {
    return (await this.recipients.of(realmId, [userId], REQUEST_ID))[0];
  }

  /**
   * Items from the queue, stored in one round whatever their organization: a
   * row per user listing the round's items for them with what the read check
   * needs of each, then the items, each naming the round, then a batch for
   * each user who has none, due after the batching period the user had when
   * the round's first item for them was decided. The rows go first, so that a
   * stored item is listed even when its round fails after storing it (a
   * delivery of it again finds it stored, and its rows list nothing). A batch
   * removed meanwhile (release) either sees the rows or is made again here.
   */
  private async keepAll(items: ItemToKeep[]): Promise<void[]> {
    const now = new Date();
    const round = roundKey(now);
    const users = new Map<string, { realmId: number; userId: number; notices: PendingNotice[]; scheduledAt: Date }>();
    for (const { id, item } of items) {
      const notice = pendingNoticeOf(id, item.message);
      for (const { userId, batchingSeconds } of item.users) {
        const key = `${item.realmId}:${userId}`;
        const known = users.get(key);
        if (known) known.notices.push(notice);
        else {
          const scheduledAt = new Date(now.getTime() + batchingSeconds * 1000);
          users.set(key, { realmId: item.realmId, userId, notices: [notice], scheduledAt });
        }
      }
    }
    await this.deps.pending.add(round, [...users.values()]);
    await this.deps.notices.insert(items, round, now);
    await this.deps.batches.schedule([...users.values()]);
    return items.map(() => undefined);
  }

  /**
   * The batch is done: the next item starts a new one. Rows left (a round's
   * stored while it was mailed, or waiting for their round's items) make it
   * due again in place, at once or shortly, rather than removed and made
   * again: an instance dying in between would leave rows that no batch
   * mails. Without rows it is removed, then made again if a round stored
   * rows meanwhile and found it (keepAll() makes none where one exists).
   */
  private async release(realmId: number, userId: number, rowIds: string[], waiting = false): Promise<void> {
    const { pending, batches } = this.deps;
    await pending.remove(rowIds);
    if (await pending.exists(realmId, userId)) {
      return batches.renew(realmId, userId, new Date(Date.now() + (waiting ? ROUND_STORE_WAIT_MS : 0)));
    }
    await batches.remove(realmId, userId);
    if (await pending.exists(realmId, userId)) {
      await batches.schedule([{ realmId, userId, scheduledAt: new Date() }]);
    }
  }

  private async mailDue(): Promise<void> {
    const now = new Date();
    let mailed = 0;
    // users backing off or held by another instance are passed over, not counted
    for (const { realmId, userId } of await this.deps.batches.dueUsers(now, BATCHES_PER_PASS * 10)) {
      if (mailed === BATCHES_PER_PASS) break;
      const started = performance.now();
      const batch = await this.deps.batches.lease(realmId, userId, now);
      if (batch === null) continue;
      await this.mailBatch(realmId, userId, batch);
      mailed++;
      // a rest as long as the batch took: an @all mention makes every idle member's batch due at once, and
      // mailed back to back they held the database for seconds, through which requests queued (the soak's
      // mark-read p99 0.45 -> 0.8-1 s); resting, a request waits for one batch's commands at most
      await sleep(performance.now() - started);
    }
    if (now.getTime() - this.prunedAt >= PRUNE_INTERVAL_MS) {
      this.prunedAt = now.getTime();
      const storedBefore = new Date(now.getTime() - KEEP_ITEMS_MS);
      await this.deps.notices.prune(storedBefore, await this.deps.pending.itemsListedBefore(storedBefore));
    }
  }

  /**
   * Of the user's rows, the notices to mail (each message once; items mailed
   * by an earlier attempt left out), the rows done with, whether some wait
   * for their round's items, and the user's flag sources, read once for both
   * the read check and the email's mention flags. As in Zulip's handle_missedmessage_emails,
   * messages read or deleted since are not mailed: the read check needs only
   * what the rows keep, so only the items of messages still unread are read,
   * and a batch of messages all read since reads none.
   */
  private async unreadNotices(realmId: number, userId: number, rows: PendingRow[], mailed: string[]) {
    const { notices: stored, messages } = this.deps;
    // rows stored before rows kept their notices: their items tell what they are about
    const earlier = await stored.byIds(rows.flatMap((row) => (row.round === undefined ? row.itemIds : [])));
    const done = new Set(mailed);
    const listed = rows
      .flatMap((row): Array<{ row: PendingRow; notice: PendingNotice }> =>
        row.round === undefined
          ? row.itemIds.flatMap((id) => {
              const item = earlier.get(id);
              return item ? [{ row, notice: pendingNoticeOf(id, item.message) }] : [];
            })
          : row.notices.map((notice) => ({ row, notice })),
      )
      .filter(({ notice }) => !done.has(notice.itemId));
    const refs = new Map(
      listed.map(({ notice: { messageId, channelId, senderId } }) => [
        messageId,
        { messageId, streamId: channelId ?? null, senderId },
      ]),
    );
    // the rows of channel messages too: their mention flags go into the email
    const sources = await flagSourcesOf(this.deps, realmId, userId, [...refs.keys()]);
    const unread = unreadIn(sources, userId, [...refs.values()]);
    // a channel's read state does not know of deletions: the messages themselves do
    const summaries = unread.length ? await messages.summaries(realmId, unread) : [];
    const existing = new Set(summaries.map((m) => m.messageId));
    const toMail = listed.filter(({ notice }) => existing.has(notice.messageId));
    const items = new Map([
      ...earlier,
      ...(await stored.byIds(toMail.filter(({ row }) => row.round !== undefined).map(({ notice }) => notice.itemId))),
    ]);
    const now = Date.now();
    const waiting = new Set(
      toMail
        .filter(
          ({ row, notice }) =>
            row.round !== undefined &&
            !items.has(notice.itemId) &&
            now - row.storedAt.getTime() < ROUND_STORE_GIVEN_UP_MS,
        )
        .map(({ row }) => row.id),
    );
    const listedItems = new Map<string, EmailNoticeDoc>();
    for (const { row, notice } of toMail) {
      const item = items.get(notice.itemId);
      if (item && !waiting.has(row.id) && listsItem(row, item, userId)) listedItems.set(item._id, item);
    }
    return {
      notices: batchNoticesOf(realmId, userId, [...listedItems.values()]),
      /** the messages still unread, as flags need them */
      messages: summaries,
      sources,
      doneRowIds: rows.filter((row) => !waiting.has(row.id)).map((row) => row.id),
      waiting: waiting.size > 0,
    };
  }

  /** Zulip's handle_missedmessage_emails for one user. */
  private async mailBatch(
    realmId: number,
    userId: number,
    { failures, mailed }: { failures: number; mailed: string[] },
  ): Promise<void> {
    const { pending, batches, transport, log } = this.deps;
    const sent = metricsOf(this.deps.nc).mailSent;
    /** items this attempt mailed that the batch does not record yet */
    let unrecorded: string[] = [];
    try {
      const rows = await pending.ofUser(realmId, userId);
      const user = await this.recipient(realmId, userId);
      if (!user || !user.is_active || user.is_bot || !user.settings.enable_offline_email_notifications) {
        return await this.release(
          realmId,
          userId,
          rows.map((row) => row.id),
        );
      }
      const {
        notices: unread,
        messages,
        sources,
        doneRowIds,
        waiting,
      } = await this.unreadNotices(realmId, userId, rows, mailed);
      // the mention flags: the rows' and an @all mention's, derived from its message
      const unreadIds = new Set(unread.map((n) => n.notice.message.id));
      const flags = flagsIn(
        sources,
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
      const buckets = bucketsOf(unread.map((n) => n.notice));
      for (const [i, bucket] of buckets.entries()) {
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
        unrecorded = bucket.flatMap((n) => entryOf.get(n)!.itemIds);
        // what a later attempt leaves out, should this one fail or its instance die before the release; the
        // last email's release follows at once
        if (i < buckets.length - 1) {
          await batches.addMailed(realmId, userId, unrecorded);
          unrecorded = [];
        }
      }
      await this.release(realmId, userId, doneRowIds, waiting);
    } catch (err) {
      sent.inc({ kind: "missed_message", outcome: "failed" });
      const delay = retryDelayMs(failures + 1);
      log.warn({ err, realmId, userId, retryInMs: delay }, "missed-message email not sent: tried again later");
      await batches.backOff(realmId, userId, failures + 1, delay, unrecorded);
    }
  }
}
