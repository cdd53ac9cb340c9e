import { CHANNEL_GROUP_SETTINGS, groupSettingUses, requireRealm, type Handler, type messaging } from "@teamchat/shared";
import { groupSetting } from "../channels/channel-view";
import type { ChannelDirectory } from "../channels/channel-directory";

/** Internal: the channels whose group settings use a user group (identity refuses to deactivate it then). */
export const channelsUsingGroupHandler =
  (deps: { channels: ChannelDirectory }): Handler<typeof messaging.channelsUsingGroup> =>
  async (p, ctx) => {
    const channels = await deps.channels.all(requireRealm(ctx).id);
    return {
      channels: channels
        .map((ch) => ({
          channel_id: ch.streamId,
          settings: CHANNEL_GROUP_SETTINGS.filter((s) => groupSettingUses(groupSetting(ch, s), p.group_id)),
        }))
        .filter((c) => c.settings.length > 0)
        .sort((a, b) => a.channel_id - b.channel_id),
    };
  };
