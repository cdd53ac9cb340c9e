/**
 * Two identity instances, each keeping the organization's users in memory:
 * what one of them changes, the other answers at once. Requests are spread
 * over the two by NATS queue groups, so each check is repeated until both
 * instances have answered it many times over.
 */
import { identity, notifications } from "@teamchat/shared";
import { startSystem, type TestSystem } from "../../../test/support/system";

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startService("identity");
});
afterAll(() => sys?.stop());

/** Enough calls that both instances answer several of them whatever the queue group's draw. */
const ROUNDS = 12;

it("a new user and a changed name are seen at once through both instances", async () => {
  for (let i = 0; i < ROUNDS; i++) await sys.call(identity.getUsers, {}, sys.owner);
  const dana = await sys.makeUser("Dana", 400, "Dana");
  for (let i = 0; i < ROUNDS; i++) {
    const { members } = await sys.call(identity.getUsers, {}, sys.owner);
    expect(members.map((m) => m.full_name)).toContain("Dana");
  }
  for (let n = 0; n < 3; n++) {
    await sys.call(identity.updateSettings, { full_name: `Dana ${n}` }, dana);
    for (let i = 0; i < ROUNDS; i++) {
      expect((await sys.call(identity.getOwnUser, {}, dana)).full_name).toBe(`Dana ${n}`);
      const { user } = await sys.call(identity.getUser, { user_id: dana.userId }, sys.owner);
      expect(user.full_name).toBe(`Dana ${n}`);
    }
  }
});

it("register's shared user lists show a changed name at once through both instances", async () => {
  const realmUsers = async () =>
    (
      (await sys.call(notifications.registerQueue, { fetch_event_types: ["realm_user"] }, sys.owner)) as unknown as {
        realm_users: Array<{ user_id: number; full_name: string }>;
      }
    ).realm_users;
  const erin = await sys.makeUser("Erin", 400, "Erin");
  for (let n = 0; n < 3; n++) {
    // both instances hold the lists before the change
    for (let i = 0; i < ROUNDS; i++) await realmUsers();
    await sys.call(identity.updateSettings, { full_name: `Erin ${n}` }, erin);
    for (let i = 0; i < ROUNDS; i++) {
      expect((await realmUsers()).find((u) => u.user_id === erin.userId)?.full_name).toBe(`Erin ${n}`);
    }
  }
});

it("a device registered or removed through either instance shows in register on both", async () => {
  const fay = await sys.makeUser("Fay", 400, "Fay");
  const devices = async () =>
    Object.keys(
      (
        (await sys.call(notifications.registerQueue, { fetch_event_types: ["device"] }, fay)) as unknown as {
          devices: Record<string, unknown>;
        }
      ).devices,
    );
  for (let i = 0; i < ROUNDS; i++) expect(await devices()).toEqual([]);
  const { device_id } = await sys.call(identity.registerClientDevice, {}, fay);
  for (let i = 0; i < ROUNDS; i++) expect(await devices()).toEqual([String(device_id)]);
  await sys.call(identity.removeClientDevice, { device_id }, fay);
  for (let i = 0; i < ROUNDS; i++) expect(await devices()).toEqual([]);
});
