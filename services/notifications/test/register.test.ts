import { request as httpRequest } from "node:http";
import { mongo } from "mongoose";
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { basicAuth } from "@teamchat/shared/src/testing/api";
import { expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";
import { startSystem, type TestSystem } from "../../../test/support/system";

type State = Record<string, unknown>;
type RegisterParams = ParamsIn<typeof notifications.registerQueue>;

/** POST /register as the owner, and what its state says of the owner and of the channel "general". */
function registration(org: TestOrganization) {
  const register = (params: RegisterParams) => org.call(notifications.registerQueue, params, org.owner);
  const ownerIn = (state: State) =>
    (state.realm_users as Array<Record<string, unknown>>).find((u) => u.user_id === org.owner.userId)!;
  const general = (state: State) => (state.subscriptions as Array<Record<string, unknown>>)[0]!;
  const createGeneral = () =>
    org.call(messaging.createChannel, { name: "general", subscribers: [org.owner.userId] }, org.owner);
  return { register, ownerIn, general, createGeneral };
}

describe("POST /register assembles the state from every service", () => {
  let org: TestOrganization;
  let r: ReturnType<typeof registration>;
  beforeAll(async () => {
    org = await testOrganization();
    r = registration(org);
    await r.createGeneral();
  });
  afterAll(() => org?.stop());

  it("asks each part with fetch_event_types (defaulting to event_types) and Zulip's defaults, and merges", async () => {
    const { register, ownerIn, general } = r;
    // every part, with Zulip's defaults: client_gravatar (no avatar URL for gravatar users), no subscribers lists
    const all = await register({});
    expect(all).toMatchObject({
      last_event_id: -1,
      event_queue_longpoll_timeout_seconds: 100,
      realm_name: "Test Organization",
    });
    expect(typeof all.queue_id).toBe("string");
    expect(ownerIn(all)).toMatchObject({ email: org.owner.email, avatar_url: null });
    expect(general(all)).toMatchObject({ name: "general" });
    expect(general(all)).not.toHaveProperty("subscribers");

    // fetch_event_types defaults to event_types: identity's part only
    const users = await register({ event_types: ["realm_user"] });
    expect(ownerIn(users)).toMatchObject({ email: org.owner.email });
    for (const key of ["subscriptions", "realm_name", "event_queue_longpoll_timeout_seconds"])
      expect(users).not.toHaveProperty(key);

    // fetch_event_types wins over event_types: messaging's part only
    const subs = await register({ event_types: ["realm_user"], fetch_event_types: ["subscription"] });
    expect(general(subs)).toMatchObject({ name: "general" });
    for (const key of ["realm_users", "realm_name"]) expect(subs).not.toHaveProperty(key);

    // the client's choices reach the parts
    const chosen = await register({
      fetch_event_types: ["realm_user", "subscription"],
      client_gravatar: false,
      include_subscribers: true,
    });
    expect(typeof ownerIn(chosen).avatar_url).toBe("string");
    expect(general(chosen).subscribers).toEqual([org.owner.userId]);
  });

  it("answers in one body of the length it announces, merged from the parts' pieces", async () => {
    const url = new URL(`${org.api(org.owner).baseUrl}/api/v1/register`);
    const res = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: "POST",
          agent: false,
          headers: { authorization: basicAuth(org.owner), host: org.api(org.owner).host ?? url.host },
        },
        (reply) => {
          const chunks: Buffer[] = [];
          reply.on("data", (c: Buffer) => chunks.push(c));
          reply.on("end", () => resolve({ headers: reply.headers, body: Buffer.concat(chunks) }));
        },
      );
      req.on("error", reject);
      req.end();
    });
    // larger than the gateway's STREAMED_REPLY_BYTES (16 KiB): written as the parts' pieces
    expect(res.body.length).toBeGreaterThan(16 * 1024);
    expect(res.headers["transfer-encoding"]).toBeUndefined();
    expect(res.headers["content-length"]).toBe(String(res.body.length));
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    const state = JSON.parse(res.body.toString("utf8")) as State;
    expect(state).toMatchObject({ result: "success", msg: "", last_event_id: -1, realm_name: "Test Organization" });
    expect(r.ownerIn(state)).toMatchObject({ email: org.owner.email });
  });
});

describe("a service that does not answer (a private system: it stops messaging)", () => {
  let sys: TestSystem;
  let r: ReturnType<typeof registration>;
  beforeAll(async () => {
    sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
    r = registration(sys);
    await r.createGeneral();
  });
  afterAll(() => sys?.stop());

  it("a part no one answers fails the registration with 503 (never a partial state), its queue removed", async () => {
    const db = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
    const queues = () =>
      db
        .db(`${sys.config.MONGO_DB_PREFIX}_notifications`)
        .collection("event_queues")
        .countDocuments({ realmId: sys.realm.id, userId: sys.owner.userId });
    const before = await queues();
    await sys.stopService("messaging");
    try {
      await expectZulipError(r.register({}), {
        status: 503,
        code: "SERVICE_UNAVAILABLE",
        msg: "Service unavailable: messaging",
      });
      // the gateway asked notifications to remove the queue it had made for the state that never came
      expect(await queues()).toBe(before);
    } finally {
      await sys.startService("messaging");
      await db.close();
    }
    // a new instance answers again
    expect(r.general(await r.register({ fetch_event_types: ["subscription"] }))).toMatchObject({ name: "general" });
  });
});
