import {
  LANGUAGES,
  badRequest,
  identity,
  identityEvents,
  isAdmin,
  requireUser,
  type Handler,
  type HandlerContext,
  type ParamsOf,
  type RealmRef,
  type EventPublisher,
} from "@teamchat/shared";
import { hashPassword, verifyPassword } from "../passwords";
import { caller } from "../users/access";
import { ownSettingChanged, personUpdated } from "../users/events";
import { checkFullName, isValidEmail } from "../users/full-name";
import { NOTIFICATION_SOUNDS, isSettingName, settingsOf, type SettingName, type SettingValue } from "../users/settings";
import type { UserChanges } from "../users/user.repository";
import type { UserDoc } from "../users/user.schema";
import { apiEmail } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";
import type { Presences } from "../presence/presences";

const MAX_BATCHING_PERIOD_SECONDS = 7 * 24 * 60 * 60;

function isTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Zulip's check_settings_values and check_timezone: nothing changes when one fails. */
export function checkSettingValues(p: Partial<ParamsOf<typeof identity.updateSettings>>): void {
  if (p.default_language !== undefined && !LANGUAGES.includes(p.default_language)) {
    throw badRequest("Invalid default_language");
  }
  const sound = p.notification_sound;
  if (sound !== undefined && sound !== "none" && !NOTIFICATION_SOUNDS.includes(sound)) {
    throw badRequest(`Invalid notification sound '${sound}'`);
  }
  const period = p.email_notifications_batching_period_seconds;
  if (period !== undefined && (period <= 0 || period > MAX_BATCHING_PERIOD_SECONDS)) {
    throw badRequest(`Invalid email batching period: ${period} seconds`);
  }
  if (p.timezone !== undefined && p.timezone !== "" && !isTimezone(p.timezone)) {
    throw badRequest("timezone is not a recognized time zone");
  }
}

/**
 * PATCH /settings (and its deprecated aliases /settings/display and
 * /settings/notifications): Zulip's json_change_settings.
 */
export const updateSettingsHandler =
  ({
    users,
    events,
    presence,
    passwordHashCost,
  }: {
    users: UserDirectory;
    events: EventPublisher<"identity">;
    presence: Presences;
    passwordHashCost: number;
  }): Handler<typeof identity.updateSettings> =>
  async (params, ctx) => {
    const { realm } = requireUser(ctx);
    const user = await caller(users, ctx);
    checkSettingValues(params);
    const { full_name, email, old_password, new_password, timezone, ...rest } = params;
    const set: UserChanges = {};

    if (new_password !== undefined) {
      if (!(await verifyPassword(old_password ?? "", user.passwordHash))) throw badRequest("Wrong password!");
      set.passwordHash = await hashPassword(new_password, passwordHashCost);
    }
    if (email !== undefined && email.trim().toLowerCase() !== user.deliveryEmail) {
      const newEmail = email.trim();
      if (!isValidEmail(newEmail)) throw badRequest("Invalid address.");
      if (await users.byEmail(realm.id, newEmail)) throw badRequest("Already has an account.");
      // Zulip only starts a confirmation here (a link mailed to the new address
      // changes it); this server sends no mail, so the address stays as it is.
    }
    if (full_name !== undefined && full_name !== user.fullName) set.fullName = checkFullName(full_name);
    if (timezone !== undefined && timezone !== user.timezone) set.timezone = timezone;
    const current = settingsOf(user);
    const changed = (Object.entries(rest) as Array<[string, SettingValue | undefined]>).filter(
      (e): e is [SettingName, SettingValue] => isSettingName(e[0]) && e[1] !== undefined && current[e[0]] !== e[1],
    );
    if (changed.length) set.settings = Object.fromEntries(changed);
    if (Object.keys(set).length === 0) return {};
    await saveOwnChanges({ users, events, presence }, realm, user, set, changed, ctx);
    return {};
  };

/**
 * Stores a user's changes to their own account and tells who must know
 * (Zulip's do_change_user_setting and its kin): `changed` lists the settings
 * among them, each with its new value.
 */
export async function saveOwnChanges(
  { users, events, presence }: { users: UserDirectory; events: EventPublisher<"identity">; presence: Presences },
  realm: RealmRef,
  user: UserDoc,
  set: UserChanges,
  changed: Array<[SettingName, SettingValue]>,
  ctx: HandlerContext,
): Promise<void> {
  const updated = (await users.change(realm.id, user.userId, set))!;
  publishChanges(events, user, updated, changed, realm, ctx);
  if (set.settings?.allow_private_data_export !== undefined) {
    await publishExportConsent(events, users, realm.id, user.userId, set.settings.allow_private_data_export, ctx);
  }
  if (set.settings?.presence_enabled !== undefined) {
    await presence.settingChanged(realm, updated, set.settings.presence_enabled, ctx);
  }
}

/** Zulip's realm_export_consent: the organization's human administrators hear a member's consent change. */
async function publishExportConsent(
  events: EventPublisher<"identity">,
  users: UserDirectory,
  realmId: number,
  userId: number,
  consented: boolean,
  ctx: HandlerContext,
): Promise<void> {
  const admins = (await users.all(realmId)).filter((u) => u.isActive && !u.isBot && isAdmin(u)).map((u) => u.userId);
  events.publish(
    identityEvents.realmExportConsent,
    { realmId, userIds: admins, event: { type: "realm_export_consent", user_id: userId, consented } },
    ctx.requestId,
  );
}

/** user_settings to the user alone; what others see of the user (name, time zone, API email) to everyone. */
function publishChanges(
  events: EventPublisher<"identity">,
  before: UserDoc,
  after: UserDoc,
  changed: Array<[SettingName, SettingValue]>,
  realm: RealmRef,
  ctx: HandlerContext,
): void {
  const user_id = after.userId;
  const own = (property: SettingName | "timezone", value: SettingValue) =>
    events.publish(identityEvents.userSettings, ownSettingChanged(realm.id, user_id, property, value), ctx.requestId);
  const toEveryone = (person: identityEvents.PersonUpdate) =>
    events.publish(identityEvents.realmUser, personUpdated(realm.id, person), ctx.requestId);
  for (const [property, value] of changed) own(property, value);
  if (after.timezone !== before.timezone) {
    own("timezone", after.timezone);
    toEveryone({ user_id, timezone: after.timezone });
  }
  if (after.fullName !== before.fullName) toEveryone({ user_id, full_name: after.fullName });
  // Email visibility decides the API address, which gateways keep in cached credentials.
  if (apiEmail(after, realm) !== apiEmail(before, realm)) {
    toEveryone({ user_id, new_email: apiEmail(after, realm) });
    events.publish(identityEvents.authInvalidated, { userId: user_id }, ctx.requestId);
  }
}
