import type { NatsConnection } from "@nats-io/transport-node";
import { AUTH_INVALIDATED, publishEvent, publishJson, type AuthInvalidated } from "@teamchat/shared";

/** realm_user update (Zulip's shape: the changed fields of `person` with its user_id), seen by everyone. */
export function publishPersonUpdate(
  nc: NatsConnection,
  realmId: number,
  person: { user_id: number; [field: string]: unknown },
  requestId: string,
): void {
  publishEvent(
    nc,
    "identity",
    { realmId, userIds: "all", event: { type: "realm_user", op: "update", person } },
    requestId,
  );
}

/** Gateways drop cached credentials of a user whose role, address or state changed. */
export function publishAuthInvalidated(nc: NatsConnection, userId: number, requestId: string): void {
  publishJson(nc, AUTH_INVALIDATED, { userId } satisfies AuthInvalidated, requestId);
}
