/**
 * Logged-in devices (Zulip's devices.py, FL 468/470): POST
 * /register_client_device makes one and answers its id, POST
 * /remove_client_device removes one of the caller's; register's `devices` and
 * the `device` events follow.
 */
import { identity, notifications } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let alice: TestUser, bob: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
});
afterAll(() => org?.stop());

const registerDevice = async (user: TestUser) => {
  const body = await org.call(identity.registerClientDevice, {}, user);
  // newer than zulip.yaml, so the reply checker has no schema: the exact shape is asserted here
  expect(Object.keys(body).sort()).toEqual(["device_id", "msg", "result"]);
  return body.device_id;
};
const registered = async (user: TestUser) =>
  (
    (await org.call(notifications.registerQueue, { fetch_event_types: ["device"] }, user)) as unknown as {
      devices: unknown;
    }
  ).devices;
const withoutIds = (events: ZulipEvent[]) => events.map(({ id: _id, ...e }) => e);
const unregistered = {
  push_key_id: null,
  push_token_id: null,
  pending_push_token_id: null,
  push_token_last_updated_timestamp: null,
  push_registration_error_code: null,
};

describe("client devices", () => {
  it("registers devices: new ids, register's devices keyed by id, a device add event each", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["device"] });
    const first = await registerDevice(alice);
    const second = await registerDevice(alice);
    expect(second).toBeGreaterThan(first);
    expect(await registered(alice)).toEqual({ [first]: unregistered, [second]: unregistered });
    expect(await registered(bob)).toEqual({});
    expect(withoutIds(await r.until((e) => e.length >= 2))).toEqual([
      { type: "device", op: "add", device_id: first },
      { type: "device", op: "add", device_id: second },
    ]);
  });

  it("removes only the caller's own device, with a device remove event", async () => {
    const mine = await registerDevice(alice);
    const r = await EventReader.register(org.api(alice), { event_types: ["device"] });
    // register's copy (kept in memory) lists it until it is removed
    expect(await registered(alice)).toHaveProperty(String(mine));
    await expectZulipError(
      org.call(identity.removeClientDevice, { device_id: mine }, bob),
      badRequestError("Invalid `device_id`"),
    );
    expect(await org.call(identity.removeClientDevice, { device_id: mine }, alice)).toEqual({
      result: "success",
      msg: "",
    });
    expect(withoutIds(await r.until((e) => e.length >= 1))).toEqual([
      { type: "device", op: "remove", device_id: mine },
    ]);
    expect(await registered(alice)).not.toHaveProperty(String(mine));
    await expectZulipError(
      org.call(identity.removeClientDevice, { device_id: mine }, alice),
      badRequestError("Invalid `device_id`"),
    );
    await expectZulipError(org.api(alice).post("/remove_client_device", {}), {
      ...badRequestError("Missing 'device_id' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "device_id",
    });
  });
});
