import { badRequest, requireUser, type Handler, type messaging } from "@teamchat/shared";
import { internalSendStreamMessage, type InternalStreamSendDeps } from "../messages/internal-send";
import { accessMessage } from "../messages/message-access";
import { reportContent } from "../message-reports/report-content";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/**
 * POST /messages/{message_id}/report (Zulip's report_message_backend and
 * send_message_report): any user who may see the message, their own
 * included, reports it; Notification Bot posts the report in the
 * organization's moderation request channel, in the topic "<sender's name>
 * moderation" (the empty topic where the channel allows only that).
 */
export const reportMessageHandler =
  (deps: InternalStreamSendDeps & { receivers: ReceiverCache }): Handler<typeof messaging.reportMessage> =>
  async ({ message_id, report_type, description }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (report_type === "other" && description === "") throw badRequest("An explanation is required.");
    const settings = await deps.settings.get(ctx);
    const channelId = settings.moderation_request_channel_id;
    const channel = channelId === null ? null : await deps.channels.byId(realm.id, channelId);
    if (!channel || channel.isArchived) throw badRequest("Message reporting is not enabled in this organization.");
    const message = await accessMessage(deps, realm.id, actor, message_id, ctx);
    const reportedChannel = message.streamId === null ? null : await deps.channels.byId(realm.id, message.streamId);
    const participants = message.streamId === null ? message.receivers : [];
    const people = await deps.users.byIds(ctx, realm.id, [message.senderId, ...participants]);
    const person = (id: number) => ({ user_id: id, full_name: people.get(id)?.full_name ?? "" });
    const sender = person(message.senderId);
    const content = reportContent(
      realm.uri,
      settings.max_message_length,
      { user_id: actor.userId, full_name: actor.fullName },
      {
        message,
        channel: reportedChannel && { streamId: reportedChannel.streamId, name: reportedChannel.name },
        sender,
        participants: participants.map(person),
      },
      report_type,
      description,
    );
    const topic = channel.topicsPolicy === "empty_topic_only" ? "" : `${sender.full_name} moderation`;
    await internalSendStreamMessage(deps, ctx, channel, topic, content);
    return {};
  };
