import { messaging, requireUser, type Handler } from "@teamchat/shared";
import { accessChannelByName } from "../channels/channel-access";
import type { Deps } from "../deps";

/** GET /get_stream_id (Zulip's json_get_stream_id): the id of a channel the user may read. */
export const getStreamIdHandler =
  (deps: Deps<"channels" | "subscriptions" | "userGroups">): Handler<typeof messaging.getStreamId> =>
  async ({ stream }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { stream_id: (await accessChannelByName(deps, realm.id, actor, stream, ctx)).streamId };
  };
