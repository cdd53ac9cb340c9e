import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { Deps } from "../deps";
import { changeFlags, checkFlagChange } from "../user-messages/flag-changes";

/** POST /messages/flags: the named messages, as Zulip answers (the ids asked for, whatever changed). */
export const updateMessageFlagsHandler =
  (
    deps: Deps<
      "messages" | "userMessages" | "subscriptions" | "channels" | "events" | "personal" | "userTopics" | "userGroups"
    >,
  ): Handler<typeof messaging.updateMessageFlags> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const op = checkFlagChange(p.op, p.flag);
    const { ignoredChannels } = await changeFlags(deps, ctx, realm.id, actor, op, p.flag, p.messages);
    return {
      messages: p.messages,
      ...(p.flag === "read" && op === "remove" && { ignored_because_not_subscribed_channels: ignoredChannels }),
    };
  };
