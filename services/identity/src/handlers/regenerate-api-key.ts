import { identity, identityEvents, requireUser, type Handler, type EventPublisher } from "@teamchat/shared";
import { requireHuman } from "../users/access";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";

/**
 * POST /users/me/api_key/regenerate (Zulip's regenerate_api_key, human users
 * only): a new key, and every earlier key (each login issued one) revoked;
 * every gateway drops the cached ones before the reply.
 */
export const regenerateApiKeyHandler =
  ({
    keys,
    events,
  }: {
    keys: ApiKeyRepository;
    events: EventPublisher<"identity">;
  }): Handler<typeof identity.regenerateApiKey> =>
  async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireHuman(actor);
    const api_key = await keys.replace(realm.id, actor.userId);
    events.publish(identityEvents.authInvalidated, { userId: actor.userId }, ctx.requestId);
    return { api_key };
  };
