import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  identity,
  publishNotificationWork,
  realmConfig,
  type BusClient,
  type CallContext,
  type RealmRef,
  type notifications,
} from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";
import type { DigestRepository } from "./digest.repository";
import { DIGEST_CUTOFF_DAYS, weekOf, zulipWeekday } from "./digest-content";

const DAY_SECONDS = 24 * 3600;
/** Zulip's _enqueue_emails_for_realm leaves out users mailed a digest in the last 12 hours. */
const RECENT_DIGEST_MS = 12 * 3600_000;
/** Users asked of identity per request. */
const RECIPIENTS_PER_REQUEST = 500;

interface Deps {
  nc: NatsConnection;
  bus: BusClient;
  users: UserDirectory;
  digests: DigestRepository;
  log: Logger;
  /** how often the digest day is looked for (DIGEST_CHECK_INTERVAL_SECONDS) */
  intervalMs: number;
}

/**
 * Zulip's enqueue_digest_emails: each messaging instance checks every
 * interval, for every organization with digests on whose digest weekday
 * (UTC) it is, whether this week's digests were queued; if not, it queues one
 * item per user who may get one (active humans with enable_digest_emails and
 * no active presence within DIGEST_CUTOFF days, not mailed one in 12 hours)
 * on `notify.digest`, then records the week as queued. Instances checking at
 * once queue the same items under the same Nats-Msg-Id (organization, user,
 * week), which JetStream stores once; an instance stopped halfway leaves the
 * week unrecorded, so the next check queues it again, and DigestMailer mails
 * each user's week once.
 */
export class DigestSchedule {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly deps: Deps) {}

  start(): void {
    this.timer = setInterval(() => {
      this.checking ??= this.check()
        .catch((err: unknown) => this.deps.log.error({ err }, "digest check failed"))
        .finally(() => (this.checking = undefined));
    }, this.deps.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
  }

  /** One check: queues the digests due now. */
  private async check(): Promise<void> {
    const { bus, digests } = this.deps;
    const now = new Date();
    const requestId = `digest-${randomUUID()}`;
    const { realms } = await bus.request(realmConfig.listRealms, {}, { realm: null, actor: null, requestId });
    for (const { realm } of realms) {
      // one organization's failure leaves its week unrecorded for the next check, and the others queued
      await this.checkRealm({ realm, actor: null, requestId }, realm, now).catch((err: unknown) =>
        this.deps.log.error({ err, realmId: realm.id }, "digest check of an organization failed"),
      );
    }
    await digests.prune(now);
  }

  private async checkRealm(ctx: CallContext, realm: RealmRef, now: Date): Promise<void> {
    const { bus, digests } = this.deps;
    // asked afresh at each check: a changed digest day or setting applies to the next one
    const settings = await bus.request(realmConfig.getRealmMailContext, { realm_id: realm.id }, ctx);
    if (!settings.digest_emails_enabled || settings.digest_weekday !== zulipWeekday(now)) return;
    const week = weekOf(now);
    if (await digests.wasQueued(realm.id, week)) return;
    await this.queueRealm(ctx, realm, week, now);
    await digests.markQueued(realm.id, week, now);
  }

  private async queueRealm(ctx: CallContext, realm: RealmRef, week: string, now: Date): Promise<void> {
    const cutoff = Math.floor(now.getTime() / 1000) - DIGEST_CUTOFF_DAYS * DAY_SECONDS;
    const humans = (await this.deps.users.all(ctx, realm.id)).filter((u) => u.is_active && !u.is_bot);
    const recentlyMailed = await this.deps.digests.recentlySent(realm.id, new Date(now.getTime() - RECENT_DIGEST_MS));
    let queued = 0;
    for (let i = 0; i < humans.length; i += RECIPIENTS_PER_REQUEST) {
      const { users } = await this.deps.bus.request(
        identity.getNotificationRecipients,
        { user_ids: humans.slice(i, i + RECIPIENTS_PER_REQUEST).map((u) => u.user_id) },
        ctx,
      );
      for (const user of users) {
        const active = user.presence_active_at !== null && user.presence_active_at > cutoff;
        if (!user.settings.enable_digest_emails || active || recentlyMailed.has(user.user_id)) continue;
        const notice: notifications.DigestNotice = { realmId: realm.id, userId: user.user_id, cutoff, week };
        await publishNotificationWork(this.deps.nc, "digest", notice, `digest:${realm.id}:${user.user_id}:${week}`);
        queued++;
      }
    }
    this.deps.log.info({ realmId: realm.id, week, queued }, "digest emails queued");
  }
}
