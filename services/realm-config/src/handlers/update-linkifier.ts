import { badRequest, isAdmin, isDuplicateKey, mustBeAdmin, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { checkLinkifier, patternTaken } from "../linkifiers/linkifier-rules";
import { publishLinkifiers } from "../linkifiers/linkifier-view";
import type { LinkifierRepository } from "../linkifiers/linkifier.repository";

/** PATCH /realm/filters/{filter_id} (Zulip's update_linkifier + do_update_linkifier): administrators. */
export const updateLinkifierHandler =
  ({
    linkifiers,
    events,
  }: {
    linkifiers: LinkifierRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.updateLinkifier> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const all = await linkifiers.inOrder(realm.id);
    if (!all.some((l) => l.linkifierId === p.filter_id)) throw badRequest("Linkifier not found.");
    const pattern = p.pattern.trim();
    const urlTemplate = p.url_template.trim();
    checkLinkifier(
      pattern,
      urlTemplate,
      all.filter((l) => l.linkifierId !== p.filter_id),
    );
    try {
      await linkifiers.update(realm.id, p.filter_id, { pattern, urlTemplate });
    } catch (err) {
      if (isDuplicateKey(err)) throw patternTaken();
      throw err;
    }
    await publishLinkifiers({ linkifiers, events }, realm.id, ctx.requestId);
    return {};
  };
