import type { NatsConnection } from "@nats-io/transport-node";
import type { Connection } from "mongoose";
import type { Logger } from "pino";
import type { ChannelAccessFacts } from "./channel-access";
import type { GroupSettingValue } from "./contracts/common";
import { CHANNEL_GROUP_SETTINGS, type ChannelGroupSetting } from "./domain/groups";
import { EventFedCopy } from "./event-fed-copy";
import { channelFacts } from "./events/messaging";
import type { DurableConsumer } from "./events/stream";
import type { PayloadOf } from "./events/define";

/**
 * What services below messaging need of a channel: whether it is private,
 * web-public, archived or a default channel, and its group settings (each
 * with its value or default), which the shared access rules read.
 */
export interface CopiedChannel extends ChannelAccessFacts {
  streamId: number;
  isArchived: boolean;
  isDefault: boolean;
  groups: Record<ChannelGroupSetting, GroupSettingValue>;
}

const SCOPE_PREFIX = "channel:";
const scopeOf = (streamId: number) => `${SCOPE_PREFIX}${streamId}`;

/**
 * A service's copy of messaging's channels (EventFedCopy), fed by its
 * channel_facts events, for the services below messaging: realm-config checks
 * the organization's channel settings with it, identity which channels' group
 * settings use a group it would deactivate and to which channels an inviter
 * may invite.
 */
export class ChannelCopy {
  private constructor(
    private readonly copy: EventFedCopy,
    private readonly consumer: { stop(): Promise<void> },
  ) {}

  static async start(nc: NatsConnection, db: Connection, consumer: DurableConsumer, log: Logger): Promise<ChannelCopy> {
    const copy = new EventFedCopy(nc, db, "channel_copy");
    const apply = async ({ realmId, channels, asOf }: PayloadOf<typeof channelFacts>, seq: number) => {
      for (const { stream_id, groups, ...flags } of channels) {
        const values = { ...flags, ...groups };
        const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
        await copy.set(realmId, scopeOf(stream_id), given, asOf ?? seq);
      }
    };
    const feed = {
      consumer,
      def: channelFacts,
      handle: (payload: unknown, { seq }: { seq: number }) => apply(payload as PayloadOf<typeof channelFacts>, seq),
    };
    return new ChannelCopy(copy, await copy.start([feed], log));
  }

  stop(): Promise<void> {
    return this.consumer.stop();
  }

  /** The channel of the organization, or null when it has none by that id. */
  async byId(realmId: number, streamId: number): Promise<CopiedChannel | null> {
    return (await this.byIds(realmId, [streamId])).get(streamId) ?? null;
  }

  /** The organization's channels of these ids, read at once (one wait for the copy to catch up); missing ones left out. */
  async byIds(realmId: number, streamIds: readonly number[]): Promise<Map<number, CopiedChannel>> {
    const facts = await this.copy.read(realmId, streamIds.map(scopeOf));
    const found = new Map<number, CopiedChannel>();
    for (const streamId of streamIds) {
      const values = facts.get(scopeOf(streamId));
      const channel = values && channelOf(streamId, values);
      if (channel) found.set(streamId, channel);
    }
    return found;
  }

  /** Every channel of the organization, archived ones included, in id order. */
  async all(realmId: number): Promise<CopiedChannel[]> {
    const channels = [...(await this.copy.read(realmId))].flatMap(([scope, values]) => {
      const channel = channelOf(Number(scope.slice(SCOPE_PREFIX.length)), values);
      return channel ? [channel] : [];
    });
    return channels.sort((a, b) => a.streamId - b.streamId);
  }
}

/** A channel whose creation the copy has seen (a change alone, of a channel older than the copy, is not one yet). */
function channelOf(streamId: number, values: Record<string, unknown>): CopiedChannel | null {
  const flags = ["invite_only", "is_archived", "is_web_public", "is_default"] as const;
  if (!flags.every((f) => typeof values[f] === "boolean") || !CHANNEL_GROUP_SETTINGS.every((s) => s in values)) {
    return null;
  }
  const groups = Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, values[s]])) as CopiedChannel["groups"];
  return {
    streamId,
    inviteOnly: values.invite_only as boolean,
    isArchived: values.is_archived as boolean,
    isWebPublic: values.is_web_public as boolean,
    isDefault: values.is_default as boolean,
    groups,
    groupSetting: (name) => groups[name],
  };
}
