import type { ReadStateRepository } from "../user-messages/read-state.repository";
import { flagsOfUsers } from "../user-messages/message-flags";
import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  DURABLE_CONSUMERS,
  consumeDurably,
  messagingEvents,
  type EventPublisher,
  type HandlerContext,
  type PayloadOf,
  type RealmRef,
} from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import { messageAudience } from "../messages/message-audience";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import { renderMessage, type RenderDeps } from "../render/message-rendering";
import type { LinkPreviewRepository } from "./link-preview.repository";
import { fetchPagePreview, type PageFetchSettings } from "./page-preview";
import type { ReceiverCache } from "../user-messages/receiver-cache";

type Wanted = PayloadOf<typeof messagingEvents.linkPreviewsWanted>;

export interface LinkPreviewDeps extends RenderDeps {
  messages: MessageRepository;
  userMessages: UserMessageRepository;
  readStates: ReadStateRepository;
  receivers: ReceiverCache;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  linkPreviews: LinkPreviewRepository;
  events: EventPublisher<"messaging">;
}

/**
 * Zulip's FetchLinksEmbedData worker, as messaging's durable consumer (one
 * instance takes each request; one left when an instance stops is taken by
 * another): each page's preview, from the day's store or fetched, then the
 * message rendered again with the cards and announced as Zulip's
 * update_message with rendering_only — unless its content changed meanwhile.
 */
export function fetchLinkPreviews(
  deps: LinkPreviewDeps,
  fetching: PageFetchSettings,
  nc: NatsConnection,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const previewsOf = async (realm: RealmRef, urls: string[]) => {
    const stored = await deps.linkPreviews.fresh(realm.id, urls);
    await Promise.all(
      urls
        .filter((url) => !stored.has(url))
        .map(async (url) => {
          const embed = await fetchPagePreview(url, fetching);
          await deps.linkPreviews.store(realm.id, url, embed);
          stored.set(url, embed);
        }),
    );
    return stored;
  };

  const apply = async ({ realm, messageId, senderId, content, urls }: Wanted, requestId: string) => {
    const ctx: HandlerContext = {
      realm,
      actor: null,
      requestId,
      client: "Internal",
      log: log.child({ requestId, realmId: realm.id }),
      parked: (wait) => wait,
    };
    const embeds = await previewsOf(realm, urls);
    const message = await deps.messages.byId(realm.id, messageId);
    if (!message || message.content !== content) return;
    const { html } = await renderMessage(deps, ctx, realm, senderId, content, embeds);
    if (html === message.renderedContent) return;
    if (!(await deps.messages.storeRendering(realm.id, messageId, content, html))) return;
    const receivers = await deps.receivers.receiversOf(realm.id, message);
    const audience = await messageAudience(deps, realm.id, message.streamId, receivers);
    const rowFlags = await flagsOfUsers(deps, realm.id, message, receivers);
    deps.events.publish(
      messagingEvents.messageUpdated,
      {
        realmId: realm.id,
        userIds: audience,
        event: {
          type: "update_message",
          user_id: null,
          edit_timestamp: Math.floor(Date.now() / 1000),
          message_id: messageId,
          message_ids: [messageId],
          rendering_only: true,
          content,
          rendered_content: html,
        },
        flags: Object.fromEntries(audience.map((u) => [u, rowFlags.get(u) ?? ["read"]])),
      },
      requestId,
    );
    ctx.log.info({ messageId, urls: urls.length }, "message rendered again with its link previews");
  };

  const def = messagingEvents.linkPreviewsWanted;
  return consumeDurably(
    nc,
    DURABLE_CONSUMERS.linkPreviews,
    new Map([
      [def.subject, { def, handle: (payload, { requestId }) => apply(payload as Wanted, requestId ?? randomUUID()) }],
    ]),
    log,
  );
}
