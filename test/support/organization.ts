/**
 * What a test works with: one organization of a running system, its owner, a
 * way to make users, and clients that speak to it (raw HTTP and typed calls).
 * testOrganization() gives a fresh one on the shared system of the jest run
 * (test/support/global-setup.ts); startSystem() gives the same surface on a
 * private system.
 */
import { randomBytes } from "node:crypto";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { mongo } from "mongoose";
import { identity, natsServers, type Contract, type ParamsIn, type RealmRef, type RoleValue } from "@teamchat/shared";
import { ApiClient, type Auth, type Credentials } from "@teamchat/shared/src/testing/api";
import { createOrganization } from "../../scripts/lib/organization";
import { callContract, type SuccessReply } from "./call";

export interface TestUser extends Credentials {
  userId: number;
  password: string;
  fullName: string;
}

export interface TestOrganization {
  /** the gateway's address; requests reach this organization with `Host: realm.host` (api() sends it) */
  baseUrl: string;
  realm: RealmRef;
  /** "" for a private system's default organization */
  subdomain: string;
  owner: TestUser;
  /** a client connection to the system's NATS, for tests that look at the bus */
  nc: NatsConnection;
  /** a raw HTTP client for this organization, for tests about HTTP itself */
  api(user: Auth | null): ApiClient;
  /** the operation of `contract` over HTTP as `asUser`; rejects with ZulipErrorReply for error replies */
  call<C extends Contract>(contract: C, params: ParamsIn<C>, asUser: Credentials | null): Promise<SuccessReply<C>>;
  /** a user created by the owner through POST /users (then given `role`), with a key from POST /fetch_api_key */
  makeUser(name: string, role?: RoleValue, fullName?: string): Promise<TestUser>;
  stop(): Promise<void>;
}

export const OWNER = { email: "owner@example.com", fullName: "Test Owner", password: "owner-password-1" };
export const ORGANIZATION_NAME = "Test Organization";

/**
 * The organization surface over a gateway at `baseUrl`. `host` is the Host
 * header that selects the organization (undefined: the gateway's default one).
 */
export function organizationClient({
  host,
  ...opts
}: Pick<TestOrganization, "baseUrl" | "realm" | "subdomain" | "owner" | "nc" | "stop"> & {
  host: string | undefined;
}): TestOrganization {
  const api = (user: Auth | null) => new ApiClient(opts.baseUrl, user, host);
  const org: TestOrganization = {
    ...opts,
    api,
    call: (contract, params, asUser) => callContract(api(asUser), contract, params),
    makeUser: async (name, role = 400, fullName = `User ${name}`) => {
      const email = `${name.toLowerCase()}@example.com`;
      const password = `${name}-password-1`;
      const { user_id } = await org.call(identity.createUser, { email, password, full_name: fullName }, org.owner);
      if (role !== 400) await org.call(identity.updateUser, { user_id, role }, org.owner);
      const { api_key } = await org.call(identity.fetchApiKey, { username: email, password }, null);
      return { email, apiKey: api_key, userId: user_id, password, fullName };
    },
  };
  return org;
}

/**
 * Deletes a finished organization's documents from every service's database.
 * The shared system's collections hold every organization's data, and the
 * embedded engine sorts every matching row for "filter + sort + limit": kept,
 * the data of earlier files would slow every later file (measured on the
 * previous engine: GET /messages 2-4x slower after five copies of
 * messages.test.ts). Every document carries realmId (docs/development.md, "Rules").
 */
async function deleteOrganizationData(realmId: number): Promise<void> {
  const client = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
  try {
    const { databases } = await client.db().admin().listDatabases({ nameOnly: true });
    const prefix = `${process.env.TEST_MONGO_DB_PREFIX!}_`;
    for (const { name } of databases.filter((d) => d.name.startsWith(prefix))) {
      const db = client.db(name);
      const collections = await db.listCollections({}, { nameOnly: true }).toArray();
      await Promise.all(collections.map(({ name: collection }) => db.collection(collection).deleteMany({ realmId })));
    }
  } finally {
    await client.close();
  }
}

/**
 * A fresh organization, with a unique subdomain, on the shared system of this
 * jest run: tests in different files (and different organizations of one file)
 * see none of each other's users, channels, messages or events.
 * Call `stop()` in afterAll: it deletes the organization's data and closes the
 * test's NATS connection.
 */
export async function testOrganization(): Promise<TestOrganization> {
  const baseUrl = process.env.TEST_BASE_URL;
  const natsUrl = process.env.TEST_NATS_URL;
  if (!baseUrl || !natsUrl || !process.env.TEST_MONGO_DB_PREFIX) {
    throw new Error("no shared system: jest's globalSetup (test/support/global-setup.ts) sets TEST_BASE_URL etc.");
  }
  const nc = await connect({ servers: natsServers(natsUrl), name: "test" });
  const subdomain = `t-${randomBytes(6).toString("hex")}`;
  const created = await createOrganization(nc, {
    subdomain,
    name: ORGANIZATION_NAME,
    ownerEmail: OWNER.email,
    ownerName: OWNER.fullName,
    ownerPassword: OWNER.password,
  });
  return organizationClient({
    baseUrl,
    host: created.realm.host,
    subdomain,
    realm: created.realm,
    owner: { ...OWNER, apiKey: created.apiKey, userId: created.userId },
    nc,
    stop: async () => {
      await nc.drain();
      await deleteOrganizationData(created.realm.id);
    },
  });
}
