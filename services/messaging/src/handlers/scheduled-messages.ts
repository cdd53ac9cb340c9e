import {
  ZulipError,
  badRequest,
  requireUser,
  type Handler,
  type messaging,
  type EventPublisher,
} from "@teamchat/shared";
import {
  toScheduledMessage,
  type ScheduledMessageFields,
  type ScheduledMessageRepository,
} from "../scheduled-messages/scheduled-message.repository";
import {
  addressing,
  checkScheduledMessage,
  mustBeInFuture,
  publishScheduledMessages,
  storedAddressing,
  storedType,
  type CheckScheduledDeps,
} from "../scheduled-messages/scheduling";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";

/** What scheduling a message and changing a scheduled one use. */
interface SchedulingDeps extends CheckScheduledDeps {
  settings: RealmSettingsSource;
  scheduledMessages: ScheduledMessageRepository;
  events: EventPublisher<"messaging">;
}

/** Zulip's access_scheduled_message refusal. */
const scheduledMessageNotFound = () => new ZulipError("BAD_REQUEST", "Scheduled message does not exist", 404);

/** GET /scheduled_messages (Zulip's get_undelivered_scheduled_messages): failed ones included, soonest first. */
export const getScheduledMessagesHandler =
  (deps: { scheduledMessages: ScheduledMessageRepository }): Handler<typeof messaging.getScheduledMessages> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const scheduled = await deps.scheduledMessages.undeliveredOf(realm.id, actor.userId, "send_later");
    return { scheduled_messages: scheduled.map(toScheduledMessage) };
  };

/**
 * POST /scheduled_messages (Zulip's create_scheduled_message_backend and
 * check_schedule_message): checked as a send is, stored rendered, scheduled_messages add.
 */
export const createScheduledMessageHandler =
  (deps: SchedulingDeps): Handler<typeof messaging.createScheduledMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    mustBeInFuture(p.scheduled_delivery_timestamp);
    const where = addressing(storedType(p.type), p.to, p.topic);
    const settings = await deps.settings.get(ctx);
    const checked = await checkScheduledMessage(deps, ctx, realm, actor, settings, where, p.content);
    const scheduled = await deps.scheduledMessages.insert(realm.id, actor.userId, "send_later", {
      ...checked,
      scheduledTimestamp: p.scheduled_delivery_timestamp,
      readBySender: p.read_by_sender ?? null,
      client: ctx.client ?? "Internal",
      realm,
    });
    publishScheduledMessages(deps, ctx.requestId, scheduled, { op: "add", messages: [scheduled] });
    return { scheduled_message_id: scheduled.scheduledMessageId };
  };

/**
 * PATCH /scheduled_messages/{scheduled_message_id} (Zulip's
 * update_scheduled_message_backend and edit_scheduled_message): a new
 * addressing or content is checked again as a send, with what is kept; a
 * failed message needs a new time and is waiting again after the edit.
 */
export const updateScheduledMessageHandler =
  (deps: SchedulingDeps): Handler<typeof messaging.updateScheduledMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const { type, to, topic, content, scheduled_delivery_timestamp: deliverAt } = p;
    if (
      type === undefined &&
      to === undefined &&
      topic === undefined &&
      content === undefined &&
      deliverAt === undefined
    ) {
      throw badRequest("Nothing to change");
    }
    if (type !== undefined && to === undefined) {
      throw badRequest("Recipient required when updating type of scheduled message.");
    }
    if (type !== undefined && storedType(type) === "stream" && topic === undefined) {
      throw badRequest("Topic required when updating scheduled message type to channel.");
    }
    if (deliverAt !== undefined) mustBeInFuture(deliverAt);

    const existing = await deps.scheduledMessages.ofSender(
      realm.id,
      actor.userId,
      p.scheduled_message_id,
      "send_later",
    );
    if (!existing) throw scheduledMessageNotFound();
    if (existing.delivered) throw badRequest("Scheduled message was already sent");
    if (existing.failed && deliverAt === undefined) throw badRequest("Scheduled delivery time must be in the future.");

    const change: Partial<ScheduledMessageFields> = { client: ctx.client ?? "Internal" };
    if (type !== undefined || to !== undefined || content !== undefined || topic !== undefined) {
      const kept = storedAddressing(existing);
      const newType = type !== undefined ? storedType(type) : existing.type;
      const where =
        to !== undefined
          ? addressing(newType, to, topic ?? existing.topic)
          : // a topic for a direct message is ignored, as Zulip's Addressee.legacy_build does
            kept.type === "stream"
            ? { ...kept, topic: topic ?? existing.topic }
            : kept;
      const settings = await deps.settings.get(ctx);
      Object.assign(
        change,
        await checkScheduledMessage(deps, ctx, realm, actor, settings, where, content ?? existing.content),
      );
    }
    if (deliverAt !== undefined) change.scheduledTimestamp = deliverAt;

    const edited = await deps.scheduledMessages.edit(realm.id, actor.userId, existing.scheduledMessageId, change);
    // claimed for delivery (or sent) since it was read: Zulip's race check
    if (!edited) throw badRequest("Scheduled message was already sent");
    publishScheduledMessages(deps, ctx.requestId, edited, { op: "update", message: edited });
    return {};
  };

/** DELETE /scheduled_messages/{scheduled_message_id} (Zulip's delete_scheduled_message): scheduled_messages remove. */
export const deleteScheduledMessageHandler =
  (deps: {
    scheduledMessages: ScheduledMessageRepository;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.deleteScheduledMessage> =>
  async ({ scheduled_message_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const existing = await deps.scheduledMessages.ofSender(realm.id, actor.userId, scheduled_message_id, "send_later");
    if (!existing) throw scheduledMessageNotFound();
    if (!(await deps.scheduledMessages.remove(realm.id, actor.userId, scheduled_message_id))) {
      // an instance is sending it at this moment
      throw badRequest("Scheduled message was already sent");
    }
    publishScheduledMessages(deps, ctx.requestId, existing, { op: "remove", scheduledMessageId: scheduled_message_id });
    return {};
  };
