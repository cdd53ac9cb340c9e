import { isAdmin, mustBeAdmin, requireUser, type Handler, type messaging } from "@teamchat/shared";
import { accessChannelById, canReadHistory } from "../channels/channel-access";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { deleteMessages, type DeleteDeps } from "../messages/delete-messages";
import type { NarrowCondition } from "../narrow/conditions";
import type { ReadStateRepository } from "../user-messages/read-state.repository";

/** Messages deleted together, newest first (Zulip's RETENTION_STREAM_MESSAGE_BATCH_SIZE). */
const BATCH_SIZE = 100;

/**
 * POST /streams/{stream_id}/delete_topic (Zulip's delete_in_topic):
 * administrators delete the topic's messages they can see, in batches, newest
 * first; when the time budget runs out the batches deleted stay deleted and
 * the reply says complete=false, for the client to repeat the request.
 */
export const deleteTopicHandler =
  (
    deps: DeleteDeps & { readStates: ReadStateRepository; settings: RealmSettingsSource; timeBudgetSeconds: number },
  ): Handler<typeof messaging.deleteTopic> =>
  async (p, ctx) => {
    const started = Date.now();
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const [{ channel, subscribed }, settings] = await Promise.all([
      // Zulip's access_stream_by_id requires content access: administrators have only
      // metadata access to private channels they are not subscribed to.
      accessChannelById(deps, realm.id, actor, p.stream_id, ctx, "content"),
      deps.settings.get(ctx),
    ]);
    const groups = await deps.userGroups.get(ctx);
    const topic = p.topic_name === settings.realm_empty_topic_display_name ? "" : p.topic_name;
    const narrow: NarrowCondition[] = [
      { kind: "channel", streamId: channel.streamId },
      { kind: "topic", key: topic.toLowerCase() },
      // without the channel's history, only the messages the administrator received
      ...(canReadHistory(actor, channel, subscribed, groups)
        ? []
        : [
            {
              kind: "receivers" as const,
              userId: actor.userId,
              channels: new Map([
                [
                  channel.streamId,
                  (await deps.readStates.of(realm.id, actor.userId, channel.streamId)).state.intervals,
                ],
              ]),
            },
          ]),
    ];
    for (;;) {
      const batch = await deps.messages.walk(realm.id, narrow, Infinity, -1, BATCH_SIZE);
      await deleteMessages(deps, ctx, realm.id, batch);
      if (batch.length < BATCH_SIZE) return { complete: true };
      if (Date.now() - started >= deps.timeBudgetSeconds * 1000) return { complete: false };
    }
  };
