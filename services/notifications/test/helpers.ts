import type { Subscription } from "@nats-io/transport-node";
import {
  BusClient,
  identity,
  publishEvent,
  registerState,
  messaging,
  type Actor,
  type Contract,
  type DomainEvent,
} from "@teamchat/shared";
import { ok, type ApiClient } from "@teamchat/shared/src/testing/api";
import type { TestSystem } from "../../../test/support/system";

const encoder = new TextEncoder();
const ctxOf = (sys: TestSystem) => ({ realm: sys.realm, actor: null, requestId: "test" });

/**
 * Notifications is tested alone: an internal operation it calls that no
 * service answers yet is answered here. Once the owner implements it, the
 * real one is used (this stub is not subscribed).
 */
export async function stubIfMissing<C extends Contract>(
  sys: TestSystem,
  contract: C,
  answer: (params: Record<string, unknown>, actor: Actor | null) => unknown,
): Promise<Subscription | null> {
  try {
    await sys.nc.request(
      contract.subject,
      encoder.encode(JSON.stringify({ realm: sys.realm, actor: null, params: {} })),
      {
        timeout: 2_000,
      },
    );
    return null;
  } catch (err) {
    const e = err as Error & { cause?: Error };
    if (e.name !== "NoRespondersError" && e.cause?.name !== "NoRespondersError" && !/no responders/i.test(e.message))
      throw err;
  }
  return sys.nc.subscribe(contract.subject, {
    callback: (_err, msg) => {
      const { params, actor } = msg.json<{ params: Record<string, unknown>; actor: Actor | null }>();
      msg.respond(encoder.encode(JSON.stringify({ ok: true, data: answer(params, actor) })));
    },
  });
}

/** Empty register parts for the services that do not answer yet. */
export async function stubRegisterParts(sys: TestSystem): Promise<void> {
  for (const s of ["identity", "realm-config", "messaging"] as const)
    await stubIfMissing(sys, registerState(s), () => ({}));
}

/** Direct conversations: the users named plus the actor (the pinned contract's rule). */
export const stubAudience = (sys: TestSystem, channelMembers: number[]) =>
  stubIfMissing(sys, messaging.getConversationAudience, (p, actor) =>
    p.to
      ? { user_ids: [...new Set([...(p.to as number[]), actor!.userId])] }
      : { user_ids: channelMembers, stream_id: p.stream_id ?? 7, topic: p.topic ?? "edited topic" },
  );

export interface TestUser {
  email: string;
  apiKey: string;
  userId: number;
}

let serial = 0;
/** Another user of the test organization (identity's internal create; any role will do here). */
export async function createUser(sys: TestSystem, name: string): Promise<TestUser> {
  const email = `${name}${++serial}@example.com`;
  const r = await new BusClient(sys.nc).request(
    identity.createOwner,
    { email, full_name: name, password: null },
    ctxOf(sys),
  );
  return { email, apiKey: r.api_key, userId: r.user_id };
}

/** Publishes a domain event as another service would. */
export function publish(
  sys: TestSystem,
  userIds: DomainEvent["userIds"],
  event: DomainEvent["event"],
  perUser?: DomainEvent["perUser"],
) {
  publishEvent(sys.nc, "test", { realmId: sys.realm.id, userIds, event, perUser });
}

export async function registerQueue(api: ApiClient, params: Record<string, unknown> = {}): Promise<string> {
  const body = ok(
    await api.post("/register", {
      event_types: ["alert_words", "muted_users", "typing", "typing_edit_message"],
      ...params,
    }),
  );
  return body.queue_id as string;
}

export const alertWords = (...words: string[]) => ({ type: "alert_words", alert_words: words });
