import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  CHANNEL_GROUP_SETTINGS,
  EventCache,
  messagingEvents,
  subscribeEvent,
  type EventPublisher,
  type EventSubscription,
} from "@teamchat/shared";
import type { ChannelChanges, ChannelRepository, NewChannel } from "./channel.repository";
import type { ChannelDoc } from "./channel.schema";
import { groupSetting } from "./channel-view";

/** What the services below messaging keep of a channel (ChannelCopy): all of it for a new channel. */
export const channelFactsOf = (ch: ChannelDoc) => ({
  stream_id: ch.streamId,
  invite_only: ch.inviteOnly,
  is_archived: ch.isArchived,
  is_web_public: ch.isWebPublic,
  is_default: ch.isDefault,
  groups: Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, groupSetting(ch, s)])),
});

/** Channels kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_CHANNELS = 50_000;

/**
 * The organization's channels, read on nearly every request (access checks,
 * narrows, message views): kept in memory per organization, loaded whole on
 * first use and forgotten by every instance on `channelsChanged`, which each
 * write here publishes before its caller replies (see EventCache).
 */
export class ChannelDirectory {
  private readonly cache: EventCache<{ byId: Map<number, ChannelDoc>; byName: Map<string, ChannelDoc> }>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly channels: ChannelRepository,
    private readonly events: EventPublisher<"messaging">,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, {
      name: "channels",
      maxWeight: MAX_CACHED_CHANNELS,
      weigh: (c) => c.byId.size + 1,
    });
    this.sub = subscribeEvent(nc, messagingEvents.channelsChanged, ({ realmId }) => this.cache.drop(`${realmId}`), {
      log,
    });
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  private realm(realmId: number) {
    return this.cache.get(`${realmId}`, async () => {
      const all = await this.channels.all(realmId);
      return { byId: new Map(all.map((c) => [c.streamId, c])), byName: new Map(all.map((c) => [c.nameKey, c])) };
    });
  }

  async byId(realmId: number, streamId: number): Promise<ChannelDoc | null> {
    return (await this.realm(realmId)).byId.get(streamId) ?? null;
  }

  async byName(realmId: number, name: string): Promise<ChannelDoc | null> {
    return (await this.realm(realmId)).byName.get(name.toLowerCase()) ?? null;
  }

  async byIds(realmId: number, streamIds: number[]): Promise<ChannelDoc[]> {
    const { byId } = await this.realm(realmId);
    return streamIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }

  async all(realmId: number): Promise<ChannelDoc[]> {
    return [...(await this.realm(realmId)).byId.values()];
  }

  /** The organization's default channels (register's realm_default_streams). */
  async defaultIds(realmId: number): Promise<number[]> {
    return (await this.all(realmId)).filter((c) => c.isDefault).map((c) => c.streamId);
  }

  /** Inserts with fresh ids; a duplicate name fails with the unique index's error. */
  async insert(realmId: number, channel: NewChannel): Promise<ChannelDoc> {
    const created = await this.channels.insert(realmId, channel);
    this.events.publish(messagingEvents.channelsChanged, { realmId });
    this.events.publish(messagingEvents.channelFacts, { realmId, channels: [channelFactsOf(created)] });
    return created;
  }

  /** Sets the channel's first message id after its oldest messages were deleted or moved. */
  async setOldestMessage(realmId: number, streamId: number, messageId: number | null): Promise<void> {
    await this.channels.setOldestMessage(realmId, streamId, messageId);
    this.events.publish(messagingEvents.channelsChanged, { realmId });
  }

  /** Records the channel's first message (once, while it is unset). */
  async setFirstMessage(realmId: number, streamId: number, messageId: number): Promise<void> {
    if (await this.channels.setFirstMessage(realmId, streamId, messageId)) {
      this.events.publish(messagingEvents.channelsChanged, { realmId });
    }
  }

  /**
   * Changes the channel's properties (PATCH /streams/{stream_id}, archiving,
   * default channels). This instance forgets its copy at once, not when its
   * own event comes back: the writer reads the channel again to tell others.
   */
  async update(realmId: number, streamId: number, changes: ChannelChanges): Promise<void> {
    await this.channels.update(realmId, streamId, changes);
    this.cache.drop(`${realmId}`);
    this.events.publish(messagingEvents.channelsChanged, { realmId });
    const facts = {
      invite_only: changes.inviteOnly,
      is_archived: changes.isArchived,
      is_web_public: changes.isWebPublic,
      is_default: changes.isDefault,
      groups: changes.groupSettings,
    };
    if (Object.values(facts).some((v) => v !== undefined)) {
      this.events.publish(messagingEvents.channelFacts, { realmId, channels: [{ stream_id: streamId, ...facts }] });
    }
  }
}
