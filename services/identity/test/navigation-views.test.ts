/**
 * Navigation views (Zulip's navigation_views.py, FL 390): list, add,
 * update, remove; built-in and custom views and Zulip's errors for each; the
 * caller's views only; register's navigation_views and the navigation_view
 * events.
 */
import { identity, notifications, type ParamsIn } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  guest = await org.makeUser("Guest", 600, "Guest");
});
afterAll(() => org?.stop());

const success = { result: "success", msg: "" };
const add = (user: TestUser, params: ParamsIn<typeof identity.addNavigationView>) =>
  org.call(identity.addNavigationView, params, user);
const update = (user: TestUser, params: ParamsIn<typeof identity.updateNavigationView>) =>
  org.call(identity.updateNavigationView, params, user);
const remove = (user: TestUser, fragment: string) => org.call(identity.removeNavigationView, { fragment }, user);
const list = async (user: TestUser) => {
  const body = await org.call(identity.listNavigationViews, {}, user);
  // newer than zulip.yaml, so the reply checker has no schema: the exact shape is asserted here
  expect(Object.keys(body).sort()).toEqual(["msg", "navigation_views", "result"]);
  return body.navigation_views;
};
const registered = async (user: TestUser) =>
  (
    (await org.call(notifications.registerQueue, { fetch_event_types: ["navigation_view"] }, user)) as unknown as {
      navigation_views: unknown;
    }
  ).navigation_views;
const withoutIds = (events: ZulipEvent[]) => events.map(({ id: _id, ...e }) => e);
const notFound = { status: 404, code: "BAD_REQUEST" as const, msg: "Navigation view does not exist." };

describe("navigation views", () => {
  it("adds a built-in view's setting and a custom view; GET, register and the add events list them", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["navigation_view"] });
    expect(await list(alice)).toEqual([]);
    expect(await add(alice, { fragment: "inbox", is_pinned: false })).toEqual(success);
    expect(await add(alice, { fragment: "narrow/is/alerted", is_pinned: true, name: "Alert words" })).toEqual(success);
    const views = [
      { fragment: "inbox", is_pinned: false, name: null },
      { fragment: "narrow/is/alerted", is_pinned: true, name: "Alert words" },
    ];
    expect(await list(alice)).toEqual(views);
    expect(await registered(alice)).toEqual(views);
    expect(withoutIds(await r.until((e) => e.length >= 2))).toEqual([
      { type: "navigation_view", op: "add", navigation_view: views[0] },
      { type: "navigation_view", op: "add", navigation_view: views[1] },
    ]);
    // each user has their own views
    expect(await list(bob)).toEqual([]);
    expect(await registered(guest)).toEqual([]);
  });

  it("strips the fragment and the name; every built-in fragment is accepted without a name", async () => {
    await add(bob, { fragment: "  narrow/channel/9-design  ", is_pinned: true, name: "  Design  " });
    for (const fragment of identity.BUILT_IN_NAVIGATION_VIEWS) await add(bob, { fragment, is_pinned: true });
    expect(await list(bob)).toEqual([
      { fragment: "narrow/channel/9-design", is_pinned: true, name: "Design" },
      ...identity.BUILT_IN_NAVIGATION_VIEWS.map((fragment) => ({ fragment, is_pinned: true, name: null })),
    ]);
  });

  it("refuses what Zulip refuses on add, and changes nothing", async () => {
    const before = await list(alice);
    const raw = (params: Record<string, unknown>) => org.api(alice).post("/navigation_views", params);
    await expectZulipError(
      raw({ fragment: "  ", is_pinned: true, name: "x" }),
      badRequestError("fragment cannot be blank"),
    );
    await expectZulipError(
      raw({ fragment: "", is_pinned: true, name: "x" }),
      badRequestError("fragment cannot be blank"),
    );
    await expectZulipError(raw({ is_pinned: true, name: "x" }), {
      ...badRequestError("Missing 'fragment' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "fragment",
    });
    await expectZulipError(raw({ fragment: "narrow/is/private" }), {
      ...badRequestError("Missing 'is_pinned' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "is_pinned",
    });
    await expectZulipError(raw({ fragment: "x", is_pinned: true, name: " " }), badRequestError("name cannot be blank"));
    await expectZulipError(
      add(alice, { fragment: "recent", is_pinned: true, name: "Recent" }),
      badRequestError("Built-in views cannot have a custom name."),
    );
    await expectZulipError(
      add(alice, { fragment: "narrow/is/private", is_pinned: true }),
      badRequestError("Custom views must have a valid name."),
    );
    await expectZulipError(
      add(alice, { fragment: "inbox", is_pinned: true }),
      badRequestError("Navigation view already exists."),
    );
    await expectZulipError(
      add(alice, { fragment: "narrow/is/private", is_pinned: true, name: "Alert words" }),
      badRequestError("Navigation view already exists."),
    );
    expect(await list(alice)).toEqual(before);
  });

  it("updates is_pinned and a custom view's name; the update event has only what was set", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["navigation_view"] });
    expect(await update(alice, { fragment: "inbox", is_pinned: true })).toEqual(success);
    expect(await update(alice, { fragment: "narrow/is/alerted", name: "Alerts" })).toEqual(success);
    expect(await update(alice, { fragment: "narrow/is/alerted", name: "Watched", is_pinned: false })).toEqual(success);
    expect(await update(alice, { fragment: "inbox" })).toEqual(success);
    expect(await list(alice)).toEqual([
      { fragment: "inbox", is_pinned: true, name: null },
      { fragment: "narrow/is/alerted", is_pinned: false, name: "Watched" },
    ]);
    expect(withoutIds(await r.until((e) => e.length >= 4))).toEqual([
      { type: "navigation_view", op: "update", fragment: "inbox", data: { is_pinned: true } },
      { type: "navigation_view", op: "update", fragment: "narrow/is/alerted", data: { name: "Alerts" } },
      {
        type: "navigation_view",
        op: "update",
        fragment: "narrow/is/alerted",
        data: { name: "Watched", is_pinned: false },
      },
      { type: "navigation_view", op: "update", fragment: "inbox", data: {} },
    ]);
  });

  it("refuses what Zulip refuses on update, in its order, and changes nothing", async () => {
    const before = await list(alice);
    await expectZulipError(
      update(alice, { fragment: "inbox", name: "Mine" }),
      badRequestError("Built-in views cannot have a custom name."),
    );
    // a name in use, the view's own too, before the view is looked up
    await expectZulipError(
      update(alice, { fragment: "narrow/is/alerted", name: "Watched" }),
      badRequestError("Navigation view already exists."),
    );
    await expectZulipError(
      update(alice, { fragment: "narrow/unknown", name: "Watched" }),
      badRequestError("Navigation view already exists."),
    );
    await expectZulipError(update(alice, { fragment: "narrow/unknown", is_pinned: true }), notFound);
    await expectZulipError(update(alice, { fragment: "recent", is_pinned: true }), notFound);
    // another user's view is not the caller's
    await expectZulipError(update(bob, { fragment: "narrow/is/alerted", is_pinned: true }), notFound);
    await expectZulipError(
      org.api(alice).patch("/navigation_views/%20", { is_pinned: true }),
      badRequestError("fragment cannot be blank"),
    );
    await expectZulipError(
      org.api(alice).patch("/navigation_views/inbox", { is_pinned: "yes" }),
      badRequestError("is_pinned is not valid JSON"),
    );
    expect(await list(alice)).toEqual(before);
  });

  it("takes a fragment with slashes as the rest of the path, unencoded as Zulip's <path:fragment> does", async () => {
    await add(guest, { fragment: "narrow/is/alerted", is_pinned: false, name: "Alerts" });
    const patched = await org.api(guest).patch("/navigation_views/narrow/is/alerted", { is_pinned: true });
    expect([patched.status, patched.body]).toEqual([200, success]);
    expect(await list(guest)).toEqual([{ fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" }]);
    await expectZulipError(org.api(guest).patch("/navigation_views/narrow/is/unknown", { is_pinned: true }), notFound);
    const removed = await org.api(guest).delete("/navigation_views/narrow/is/alerted");
    expect([removed.status, removed.body]).toEqual([200, success]);
    expect(await list(guest)).toEqual([]);
    await expectZulipError(org.api(guest).delete("/navigation_views/narrow/is/alerted"), notFound);
  });

  it("removes a view; the remove event names its fragment; unknown and blank fragments are refused", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["navigation_view"] });
    await expectZulipError(remove(bob, "narrow/is/alerted"), notFound);
    expect(await remove(alice, "narrow/is/alerted")).toEqual(success);
    expect(await list(alice)).toEqual([{ fragment: "inbox", is_pinned: true, name: null }]);
    expect(await list(bob)).toHaveLength(1 + identity.BUILT_IN_NAVIGATION_VIEWS.length);
    await expectZulipError(remove(alice, "narrow/is/alerted"), notFound);
    await expectZulipError(
      org.api(alice).delete("/navigation_views/%20%20"),
      badRequestError("fragment cannot be blank"),
    );
    expect(withoutIds(await r.until((e) => e.length >= 1))).toEqual([
      { type: "navigation_view", op: "remove", fragment: "narrow/is/alerted" },
    ]);
    // the name is free again
    await add(alice, { fragment: "narrow/is/followed", is_pinned: false, name: "Watched" });
    expect(await registered(alice)).toEqual([
      { fragment: "inbox", is_pinned: true, name: null },
      { fragment: "narrow/is/followed", is_pinned: false, name: "Watched" },
    ]);
  });
});
