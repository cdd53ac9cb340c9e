import type { identity } from "@teamchat/shared";

/**
 * Zulip's presence model (zerver/actions/presence.py, zerver/lib/presence.py)
 * as pure functions of times in milliseconds. The constants are the newest
 * server's (zproject/default_settings.py).
 */

/** How old a user's last report may be before clients show them offline (Zulip 140 before 7.0, 200 since). */
export const OFFLINE_THRESHOLD_SECS = 200;
/** How often clients report presence. */
export const PRESENCE_PING_INTERVAL_SECS = 60;
/** A report younger than this after the stored one changes nothing (several windows of one user). */
const PRESENCE_UPDATE_MIN_FREQ_SECONDS = 55;
/** How far last activity may trail the last connection for the legacy format to still say "active". */
const PRESENCE_LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS = 70;
/** Beyond this many active users, coming online sends no presence event (the quadratic cost Zulip avoids). */
export const USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS = 100;
/** How far back a first fetch reaches unless the client says (history_limit_days). */
export const DEFAULT_HISTORY_LIMIT_DAYS = 14;

const SECOND = 1000;
const DAY = 24 * 60 * 60 * SECOND;

/** One user's presence: Zulip's UserPresence row. */
export interface PresenceTimes {
  /** last report of "active"; null when the user has only ever been idle */
  activeAt: number | null;
  /** last report of any kind */
  connectedAt: number;
}

export interface PresenceRecord extends PresenceTimes {
  /** when it was last written, increasing over every write: Zulip's last_update_id */
  revision: number;
}

export interface PresenceReport {
  /** the times to store, or null when the report changes nothing */
  next: PresenceTimes | null;
  /** whether others should hear of it now: the user's first report, or active after long enough away */
  announce: boolean;
}

/** Zulip's do_update_user_presence: what a report of `active` (or idle) at `now` makes of the stored presence. */
export function reportPresence(current: PresenceTimes | undefined, now: number, active: boolean): PresenceReport {
  if (!current) return { next: { activeAt: active ? now : null, connectedAt: now }, announce: true };
  // Never active counts as long ago: the user is newly online.
  const sinceActive = current.activeAt === null ? DAY : now - current.activeAt;
  const sinceConnected = now - current.connectedAt;
  // Only when the user missed a couple of regular reports, and clients may be about to show them offline.
  const wasAway = sinceActive > (OFFLINE_THRESHOLD_SECS - PRESENCE_PING_INTERVAL_SECS - 10) * SECOND;
  const next = { ...current };
  let changed = false;
  if (sinceConnected > PRESENCE_UPDATE_MIN_FREQ_SECONDS * SECOND) {
    next.connectedAt = now;
    changed = true;
  }
  if (active && sinceActive > PRESENCE_UPDATE_MIN_FREQ_SECONDS * SECOND) {
    next.activeAt = now;
    // keep last connection no older than last activity
    if (now > next.connectedAt) next.connectedAt = now;
    changed = true;
  }
  return { next: changed ? next : null, announce: active && wasAway };
}

/**
 * What turning presence_enabled on or off stores (Zulip's do_change_user_setting):
 * on, active now; off, a report from long enough ago that every client shows
 * the user offline, for as long as it stays off. Zulip leaves the last
 * activity unset there, which reads as the join date: a user who joined
 * minutes ago would show as online, so both times are set back here.
 */
export function presenceForSetting(enabled: boolean, now: number): PresenceTimes {
  if (enabled) return { activeAt: now, connectedAt: now };
  const offlineSince = now - (OFFLINE_THRESHOLD_SECS + 120) * SECOND;
  return { activeAt: offlineSince, connectedAt: offlineSince };
}

const seconds = (ms: number): number => Math.floor(ms / SECOND);

/** A never-active user counts as active when they joined (Zulip's user_presence_datetime_with_date_joined_default). */
const activeOrJoined = (p: PresenceTimes, dateJoined: Date): number => p.activeAt ?? dateJoined.getTime();

export function modernPresence(p: PresenceTimes, dateJoined: Date): identity.ModernPresence {
  return { active_timestamp: seconds(activeOrJoined(p, dateJoined)), idle_timestamp: seconds(p.connectedAt) };
}

/** Zulip's format_legacy_presence_dict: active while the last activity is close enough to the last connection. */
export function legacyClientPresence(p: PresenceTimes, dateJoined: Date): identity.LegacyPresence["website"] {
  const activeAt = activeOrJoined(p, dateJoined);
  const active = activeAt + PRESENCE_LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS * SECOND >= p.connectedAt;
  return {
    client: "website",
    status: active ? "active" : "idle",
    timestamp: seconds(active ? activeAt : p.connectedAt),
    pushable: false,
  };
}

/** Zulip's get_legacy_user_presence_info: the one client, and `aggregated` repeating it. */
export function legacyPresence(p: PresenceTimes, dateJoined: Date): identity.LegacyPresence {
  const website = legacyClientPresence(p, dateJoined);
  return { aggregated: { client: "website", status: website.status, timestamp: website.timestamp }, website };
}

/** Whether a report this old means the user is offline. */
export const isOffline = (timestampSecs: number, now: number): boolean =>
  seconds(now) - timestampSecs > OFFLINE_THRESHOLD_SECS;

export interface PresenceQuery {
  /** the client's presence_last_update_id: only what changed since (feature level 263) */
  lastUpdateId?: number;
  historyLimitDays?: number;
}

/**
 * Zulip's get_presence_dict_by_realm's selection: what changed since the
 * client's last_update_id and, on a first fetch (none, or ≤ 0), what was
 * connected within the history limit; and the last_update_id to give back.
 */
export function selectPresences<R extends PresenceRecord>(
  records: Iterable<R>,
  { lastUpdateId, historyLimitDays }: PresenceQuery,
  now: number,
): { selected: R[]; lastUpdateId: number } {
  const since = now - (historyLimitDays ?? DEFAULT_HISTORY_LIMIT_DAYS) * DAY;
  const firstFetch = lastUpdateId === undefined || lastUpdateId <= 0;
  const selected =
    historyLimitDays === 0
      ? []
      : [...records].filter(
          (r) => (lastUpdateId === undefined || r.revision > lastUpdateId) && (!firstFetch || r.connectedAt >= since),
        );
  const newest = selected.length > 0 ? Math.max(...selected.map((r) => r.revision)) : (lastUpdateId ?? -1);
  return { selected, lastUpdateId: newest };
}
