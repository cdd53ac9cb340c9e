/**
 * Two identity instances share presence through the KV bucket: a report
 * through either is seen through both, and a new instance starts with every
 * report made before it.
 */
import { identity } from "@teamchat/shared";
import { startSystem, type TestSystem } from "../../../test/support/system";

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.stop());

/** Enough calls that both instances answer several of them whatever the queue group's draw. */
const ROUNDS = 12;

it("reports through either instance are seen through both, and by an instance started later", async () => {
  const ann = await sys.makeUser("Ann", 400, "Ann");
  await sys.call(identity.updatePresence, { status: "active", ping_only: true }, ann);
  await sys.startService("identity");
  for (let i = 0; i < ROUNDS; i++) {
    const { presences } = await sys.call(identity.getRealmPresence, {}, sys.owner);
    expect(Object.keys(presences)).toContain(ann.email);
  }
  const bea = await sys.makeUser("Bea", 400, "Bea");
  for (let i = 0; i < ROUNDS; i++) {
    const user = await sys.makeUser(`Cal${i}`, 400, `Cal ${i}`);
    await sys.call(identity.updatePresence, { status: "idle", ping_only: true }, user);
    const { presences } = await sys.call(identity.updatePresence, { status: "active", slim_presence: true }, bea);
    expect(presences).toHaveProperty(String(user.userId));
  }
});
