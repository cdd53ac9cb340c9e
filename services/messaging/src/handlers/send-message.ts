import {
  badRequest,
  messaging,
  requireUser,
  type Actor,
  type Handler,
  type HandlerContext,
  type ParamsOf,
} from "@teamchat/shared";
import { claimAttachments, linkedPathIds, type LinkDeps } from "../attachments/attachment-links";
import { accessChannelForSend } from "../channels/channel-access";
import type { Deps } from "../deps";
import { normalizeContent, normalizeTopic } from "../messages/message-content";
import {
  channelDestination,
  directDestination,
  postMessage,
  type Destination,
  type PostDeps,
} from "../messages/post-message";
import type { UserSummary } from "../users/user-directory";

type Params = ParamsOf<typeof messaging.sendMessage>;

/** A channel's `to`: its id, its name, or a one-element list of either. */
function channelTarget(to: Params["to"]): string | number {
  const target = Array.isArray(to) && to.length === 1 ? to[0]! : to;
  if (Array.isArray(target)) throw badRequest("Invalid channel name");
  return target;
}

/** Direct-message recipients: user ids or emails, as a list, one value, or comma-separated addresses. */
async function directRecipients(
  deps: Deps<"users">,
  ctx: HandlerContext,
  realmId: number,
  actor: Actor,
  to: Params["to"],
) {
  const list = Array.isArray(to) ? to : typeof to === "number" ? [to] : to.split(",").map((s) => s.trim());
  const wanted = list.filter((v) => v !== "");
  if (!wanted.length) throw badRequest("Message must have recipients");
  const ids = wanted.filter((v): v is number => typeof v === "number");
  const emails = wanted.filter((v): v is string => typeof v === "string");
  const [byId, byEmail] = await Promise.all([
    deps.users.byIds(ctx, realmId, ids),
    emails.length ? deps.users.byEmails(ctx, realmId, emails) : new Map<string, UserSummary>(),
  ]);
  const missingId = ids.find((id) => !byId.has(id));
  if (missingId !== undefined) throw badRequest(`Invalid user ID ${missingId}`);
  const missingEmail = emails.find((e) => !byEmail.has(e));
  if (missingEmail !== undefined) throw badRequest(`Invalid email '${missingEmail}'`);
  const users = [...byId.values(), ...byEmail.values()];
  const inactive = users.find((u) => !u.is_active);
  if (inactive) throw badRequest(`'${inactive.email}' is no longer using Zulip.`);
  return [...new Set([actor.userId, ...users.map((u) => u.user_id)])].sort((a, b) => a - b);
}

/** POST /messages: a channel or direct message; each recipient gets a message event with their flags. */
export const sendMessageHandler =
  (deps: PostDeps & LinkDeps & Deps<"settings">): Handler<typeof messaging.sendMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const settings = await deps.settings.get(ctx);
    const content = normalizeContent(p.content, settings);

    let to: Destination;
    if (p.type === "stream" || p.type === "channel") {
      const channel = await accessChannelForSend(deps, realm.id, actor, channelTarget(p.to), ctx);
      const given = p.topic ?? p.subject;
      if (given === undefined) throw badRequest("Missing topic");
      to = await channelDestination(deps, realm.id, channel, normalizeTopic(given, settings, channel));
    } else {
      to = await directDestination(deps, realm.id, await directRecipients(deps, ctx, realm.id, actor, p.to));
    }
    const message = await postMessage(deps, ctx, realm, settings, to, {
      senderId: actor.userId,
      content,
      // sends that come through the bus from another service, not from an HTTP client, are Zulip's "Internal"
      client: ctx.client ?? "Internal",
      readBy: p.read_by_sender === false ? [] : [actor.userId],
    });
    await claimAttachments(deps, ctx, realm.id, actor, message, linkedPathIds(content));
    return { id: message.messageId };
  };
