import { isAdmin, isDuplicateKey, mustBeAdmin, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { checkLinkifier, patternTaken } from "../linkifiers/linkifier-rules";
import { publishLinkifiers } from "../linkifiers/linkifier-view";
import type { LinkifierRepository } from "../linkifiers/linkifier.repository";

/** POST /realm/filters (Zulip's create_linkifier + do_add_linkifier): administrators; the new one goes last. */
export const createLinkifierHandler =
  ({
    linkifiers,
    events,
  }: {
    linkifiers: LinkifierRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.createLinkifier> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const pattern = p.pattern.trim();
    const urlTemplate = p.url_template.trim();
    checkLinkifier(pattern, urlTemplate, await linkifiers.inOrder(realm.id));
    let linkifier;
    try {
      linkifier = await linkifiers.insert(realm.id, { pattern, urlTemplate });
    } catch (err) {
      if (isDuplicateKey(err)) throw patternTaken();
      throw err;
    }
    await publishLinkifiers({ linkifiers, events }, realm.id, ctx.requestId);
    return { id: linkifier.linkifierId };
  };
