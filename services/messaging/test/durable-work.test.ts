/**
 * Work one service does for another's event comes from a durable consumer: an
 * event published while no instance of the working service runs is applied
 * when one starts (here: turning draft synchronization off deletes the
 * server's drafts, though messaging was down when it was turned off).
 */
import { identity, messaging } from "@teamchat/shared";
import { startSystem, type TestSystem } from "../../../test/support/system";

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.stop());

const drafts = async () => (await sys.call(messaging.getDrafts, {}, sys.owner)).drafts;

it("a setting changed while messaging was down is applied to its data when it starts", async () => {
  await sys.call(
    messaging.createDrafts,
    { drafts: [{ type: "private", to: [sys.owner.userId], topic: "", content: "kept only while synced" }] },
    sys.owner,
  );
  expect(await drafts()).toHaveLength(1);

  await sys.stopService("messaging");
  await sys.call(identity.updateSettings, { enable_drafts_synchronization: false }, sys.owner);
  await sys.startService("messaging");
  // turned on again, the list shows what the server kept: nothing, once the waiting event was applied
  await sys.call(identity.updateSettings, { enable_drafts_synchronization: true }, sys.owner);
  for (const giveUpAt = Date.now() + 20_000; (await drafts()).length > 0;) {
    if (Date.now() > giveUpAt) throw new Error("the drafts were not deleted after messaging started");
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(await drafts()).toEqual([]);
}, 60_000);
