/**
 * Onboarding steps (Zulip's onboarding_steps.py): register's onboarding_steps
 * and navigation_tour_video_url, POST /users/me/onboarding_steps and the
 * onboarding_steps event; and identity's other register keys of the bots and
 * video-call groups (realm_embedded_bots, realm_incoming_webhook_bots,
 * has_zoom_token), each only when its event type is fetched.
 */
import { identity, notifications } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let member: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  member = await org.makeUser("Onboarding", 400);
  guest = await org.makeUser("OnboardingGuest", 600);
});
afterAll(() => org?.stop());

const success = { result: "success", msg: "" };
const register = (user: TestUser, fetch_event_types: string[]) =>
  org.call(notifications.registerQueue, { fetch_event_types }, user) as unknown as Promise<Record<string, unknown>>;
const steps = (...names: string[]) => names.map((name) => ({ type: "one_time_notice", name }));
/** Zulip's ONE_TIME_NOTICES without navigation_tour_video (no tour video is configured). */
const ALL_STEPS = steps(
  "visibility_policy_banner",
  "intro_inbox_view_modal",
  "intro_recent_view_modal",
  "first_stream_created_banner",
  "jump_to_conversation_banner",
  "non_interleaved_view_messages_fading",
  "interleaved_view_messages_fading",
  "intro_resolve_topic",
);
const without = (name: string) => ALL_STEPS.filter((s) => s.name !== name);

describe("onboarding steps", () => {
  it("register lists every notice for a new user, and no tour video", async () => {
    const state = await register(guest, ["onboarding_steps"]);
    expect(state.onboarding_steps).toEqual(ALL_STEPS);
    expect(state.navigation_tour_video_url).toBeNull();
  });

  it("marking a step read removes it from register and sends the steps left to the user only", async () => {
    const mine = await EventReader.register(org.api(member), { event_types: ["onboarding_steps"] });
    const others = await EventReader.register(org.api(guest), { event_types: ["onboarding_steps"] });
    expect(
      await org.call(identity.markOnboardingStepAsRead, { onboarding_step: "intro_inbox_view_modal" }, member),
    ).toEqual(success);
    expect((await register(member, ["onboarding_steps"])).onboarding_steps).toEqual(without("intro_inbox_view_modal"));
    // marking it again changes nothing, and Zulip sends the steps again
    await org.call(identity.markOnboardingStepAsRead, { onboarding_step: "intro_inbox_view_modal" }, member);
    const events = await mine.until((e) => e.length >= 2);
    expect(events.map(({ id: _id, ...e }) => e)).toEqual([
      { type: "onboarding_steps", onboarding_steps: without("intro_inbox_view_modal") },
      { type: "onboarding_steps", onboarding_steps: without("intro_inbox_view_modal") },
    ]);
    expect(await others.drain()).toEqual([]);
    expect((await register(guest, ["onboarding_steps"])).onboarding_steps).toEqual(ALL_STEPS);
  });

  it("the tour video's step is accepted though never listed", async () => {
    expect(
      await org.call(identity.markOnboardingStepAsRead, { onboarding_step: "navigation_tour_video" }, guest),
    ).toEqual(success);
    expect((await register(guest, ["onboarding_steps"])).onboarding_steps).toEqual(ALL_STEPS);
  });

  it("refuses an unknown step and bots, changing nothing", async () => {
    await expectZulipError(
      org.call(identity.markOnboardingStepAsRead, { onboarding_step: "hotspot" }, member),
      badRequestError("Unknown onboarding_step: hotspot"),
    );
    await expectZulipError(org.api(member).post("/users/me/onboarding_steps", {}), {
      ...badRequestError("Missing 'onboarding_step' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "onboarding_step",
    });
    const created = await org.call(identity.createBot, { full_name: "Tour Bot", short_name: "tour" }, member);
    const { bots } = await org.call(identity.getBots, {}, member);
    const bot = { email: bots.find((b) => b.api_key === created.api_key)!.username, apiKey: created.api_key };
    await expectZulipError(
      org.call(identity.markOnboardingStepAsRead, { onboarding_step: "intro_resolve_topic" }, bot),
      badRequestError("This endpoint does not accept bot requests."),
    );
    expect((await register(member, ["onboarding_steps"])).onboarding_steps).toEqual(without("intro_inbox_view_modal"));
  });
});

describe("identity's other register keys", () => {
  it("embedded bots with their configuration templates, no incoming webhook integrations, no Zoom token", async () => {
    expect(await register(member, ["realm_embedded_bots", "realm_incoming_webhook_bots", "video_calls"])).toMatchObject(
      {
        realm_embedded_bots: [
          { name: "converter", config: {} },
          { name: "encrypt", config: {} },
          { name: "helloworld", config: {} },
          { name: "virtual_fs", config: {} },
          { name: "giphy", config: { key: "12345678" } },
          { name: "followup", config: {} },
        ],
        realm_incoming_webhook_bots: [],
        has_zoom_token: false,
      },
    );
  });

  it("each key only with its event type", async () => {
    const state = await register(member, ["video_calls"]);
    expect(state.has_zoom_token).toBe(false);
    for (const key of ["realm_embedded_bots", "realm_incoming_webhook_bots", "onboarding_steps", "push_devices"]) {
      expect(state).not.toHaveProperty(key);
    }
    expect(await register(member, ["realm_user"])).not.toHaveProperty("has_zoom_token");
  });
});
