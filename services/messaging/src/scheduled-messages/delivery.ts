import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { ZulipError, badRequest, messagingEvents, type Actor, type HandlerContext } from "@teamchat/shared";
import { internalSendPrivateMessage, type InternalSendDeps } from "../messages/internal-send";
import { checkMessage, type CheckMessageDeps } from "../messages/check-message";
import { postMessage } from "../messages/post-message";
import type { ScheduledMessageDoc } from "./scheduled-message.schema";
import { publishReminders } from "../reminders/reminders";
import { addresseeOf, publishScheduledMessages, storedAddressing } from "./scheduling";
import type { ScheduledMessageRepository } from "./scheduled-message.repository";

/** What delivering scheduled messages uses: a send's check, the send, and Notification Bot's failure notice. */
interface DeliveryDeps extends CheckMessageDeps, InternalSendDeps {
  scheduledMessages: ScheduledMessageRepository;
}

/** How often each instance looks for due messages. */
const POLL_INTERVAL_MS = 1000;
/** Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES: later than this, a message is not sent but failed. */
const LATE_CUTOFF_SECONDS = 10 * 60;
/** A claim this old was taken by an instance that stopped mid-send: it may have been sent, so it is failed, never retried. */
const STALE_CLAIM_MS = 5 * 60 * 1000;

/** Why a message was not sent without telling the sender (Zulip's RealmDeactivatedError, UserDeactivatedError). */
class SenderGone extends Error {}

/** Zulip's str(datetime) of an aware UTC time, as its failure notice shows it. */
const zulipTime = (seconds: number) =>
  new Date(seconds * 1000)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "+00:00");

/**
 * Zulip's deliver_scheduled_messages worker: every instance looks for due
 * messages each second and claims each with one conditional update (only the
 * instance whose claim matched sends it, so two instances never send one
 * twice), then sends it as its sender through POST /messages' path, checked
 * again as at its time (Zulip's send_scheduled_message). The state is in the
 * database, so messages due while no instance ran are sent at the next start
 * (within the late cutoff). A failure marks it failed with Zulip's message
 * and tells the sender through Notification Bot.
 */
export class ScheduledMessageDelivery {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep()
        .catch((err: unknown) => this.log.error({ err }, "scheduled message sweep failed"))
        .finally(() => (this.sweeping = undefined));
    }, POLL_INTERVAL_MS);
  }

  /** Stops looking; a delivery under way finishes. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const abandoned of await this.deps.scheduledMessages.stale(now - STALE_CLAIM_MS)) {
      await this.fail(abandoned, abandoned.claimedAt!, badRequest("Message could not be sent at the scheduled time."));
    }
    for (const due of await this.deps.scheduledMessages.due(Math.floor(now / 1000))) {
      const claimedAt = Date.now();
      const claimed = await this.deps.scheduledMessages.claim(due, claimedAt);
      if (claimed) await this.deliver(claimed, claimedAt);
    }
  }

  private async deliver(m: ScheduledMessageDoc, claimedAt: number): Promise<void> {
    const ctx = this.contextFor(m, null);
    ctx.log.info({ scheduledMessageId: m.scheduledMessageId, senderId: m.senderId }, "sending scheduled message");
    try {
      const settings = await this.deps.settings.get(ctx);
      const sender = (await this.deps.users.byIds(ctx, m.realmId, [m.senderId])).get(m.senderId);
      if (!sender?.is_active) throw new SenderGone("sender deactivated");
      if (Date.now() / 1000 > m.scheduledTimestamp + LATE_CUTOFF_SECONDS) {
        throw badRequest("Message could not be sent at the scheduled time.");
      }
      if (m.deliveryType === "remind") return await this.remind(m, ctx);
      const actor: Actor = {
        userId: sender.user_id,
        realmId: m.realmId,
        email: sender.email,
        deliveryEmail: sender.delivery_email,
        fullName: sender.full_name,
        role: sender.role,
        isBot: sender.is_bot,
      };
      const sendCtx = { ...ctx, actor };
      // checked again: permissions, recipients and mentionable users may have changed since it was scheduled
      const { to, content } = await checkMessage(
        this.deps,
        sendCtx,
        m.realm,
        actor,
        settings,
        addresseeOf(storedAddressing(m), m.content),
      );
      const message = await postMessage(this.deps, sendCtx, m.realm, settings, to, {
        senderId: actor.userId,
        content,
        client: m.client,
        readBy: m.readBySender === false ? [] : [actor.userId],
      });
      await this.deps.scheduledMessages.markDelivered(m, message.messageId);
      publishScheduledMessages(this.deps, ctx.requestId, m, { op: "remove", scheduledMessageId: m.scheduledMessageId });
    } catch (err) {
      await this.fail(m, claimedAt, err);
    }
  }

  /**
   * A reminder: Notification Bot sends its text, checked when it was made, to
   * its owner, unread (Zulip's send_scheduled_message for REMIND); reminders remove.
   */
  private async remind(m: ScheduledMessageDoc, ctx: HandlerContext): Promise<void> {
    const message = await internalSendPrivateMessage(this.deps, ctx, m.senderId, m.content);
    if (!message) throw badRequest("Message could not be sent at the scheduled time.");
    await this.deps.scheduledMessages.markDelivered(m, message.messageId);
    publishReminders(this.deps, ctx.requestId, m, { op: "remove", reminderId: m.scheduledMessageId });
  }

  /**
   * Zulip's failure path of try_deliver_one_scheduled_message: a failed
   * reminder stays listed as failed, with no notice.
   */
  private async fail(m: ScheduledMessageDoc, claimedAt: number, err: unknown): Promise<void> {
    const ctx = this.contextFor(m, null);
    const failureMessage = err instanceof ZulipError ? err.msg : "Internal server error";
    if (err instanceof ZulipError) ctx.log.info({ failureMessage }, "scheduled message failed");
    else ctx.log.error({ err, scheduledMessageId: m.scheduledMessageId }, "unexpected error sending scheduled message");
    const failed = await this.deps.scheduledMessages.markFailed(m, claimedAt, failureMessage);
    if (!failed) return;
    if (m.deliveryType === "remind" || err instanceof SenderGone) {
      // no client hears of it (a deactivated sender may be reactivated), but every instance's copy
      // of the user's reminders or scheduled messages for register must go
      this.deps.events.publish(
        messagingEvents.userListsChanged,
        { realmId: m.realmId, userIds: [m.senderId] },
        ctx.requestId,
      );
      return;
    }
    publishScheduledMessages(this.deps, ctx.requestId, failed, { op: "update", message: failed });
    await internalSendPrivateMessage(
      this.deps,
      ctx,
      m.senderId,
      `The message you scheduled for <time:${zulipTime(m.scheduledTimestamp)}> was not sent because of the following error:\n\n` +
        `> ${failureMessage}\n\n[View scheduled messages](#scheduled)\n\n`,
    );
  }

  /** A request context for work no HTTP request started: the organization and sender as scheduled. */
  private contextFor(m: ScheduledMessageDoc, actor: Actor | null): HandlerContext {
    const requestId = `scheduled-${m.realmId}-${m.scheduledMessageId}-${randomUUID()}`;
    return {
      realm: m.realm,
      actor,
      requestId,
      client: m.client,
      log: this.log.child({ requestId, realmId: m.realmId }),
      parked: (wait) => wait,
    };
  }
}
