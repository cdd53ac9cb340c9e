import type { NatsConnection } from "@nats-io/transport-node";
import { randomUUID } from "node:crypto";
import { BusClient, identity, realmConfig, type RealmRef } from "@teamchat/shared";

export interface NewOrganization {
  subdomain: string;
  name: string;
  ownerEmail: string;
  ownerName: string;
  ownerPassword: string | null;
}

export interface CreatedOrganization {
  realm: RealmRef;
  realmCreated: boolean;
  userId: number;
  ownerCreated: boolean;
  /** a fresh key for the owner (keys are stored hashed, so an existing one cannot be shown) */
  apiKey: string;
}

/** Creates (or finds) an organization and its owner over the bus, as the services own that data. */
export async function createOrganization(nc: NatsConnection, org: NewOrganization): Promise<CreatedOrganization> {
  const bus = new BusClient(nc, { timeoutMs: 15_000 });
  const requestId = `manage-${randomUUID()}`;
  const { realm, created } = await bus.request(
    realmConfig.createRealm,
    { subdomain: org.subdomain, name: org.name },
    { realm: null, actor: null, requestId },
  );
  const owner = await bus.request(
    identity.createOwner,
    { email: org.ownerEmail, full_name: org.ownerName, password: org.ownerPassword },
    { realm, actor: null, requestId },
  );
  return { realm, realmCreated: created, userId: owner.user_id, ownerCreated: owner.created, apiKey: owner.api_key };
}

/** The INI file Zulip's clients (python bindings, terminal client, zulip-js) read. */
export const zuliprc = (email: string, key: string, site: string): string =>
  `[api]\nemail=${email}\nkey=${key}\nsite=${site}\n`;
