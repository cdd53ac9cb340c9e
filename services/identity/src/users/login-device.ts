import { parse } from "useragent-ng";

/**
 * The browser and operating system a new-login mail names, as Zulip's
 * get_device_browser and get_device_os (zerver/signals.py) read them from the
 * User-Agent: with the uap-core rules that Zulip's ua_parser applies, so the
 * names are the same ("Chrome", "Mobile Safari", "Ubuntu", "Chrome OS").
 */
export interface LoginDevice {
  browser: string;
  os: string;
}

/** What uap-core calls what it does not recognise. */
const UNKNOWN = "Other";
/** The two uap-core names Zulip replaces with its own. */
const ZULIP_NAMES: Readonly<Record<string, string>> = { IE: "Internet Explorer", "Mac OS X": "macOS" };

const named = (family: string, unknown: string): string =>
  family === UNKNOWN ? unknown : (ZULIP_NAMES[family] ?? family);

export function loginDeviceOf(userAgent: string): LoginDevice {
  const agent = parse(userAgent);
  return {
    // Zulip's own apps (ZulipMobile, ZulipElectron, ZulipPython, ...) are all "Zulip"
    browser: userAgent.toLowerCase().includes("zulip") ? "Zulip" : named(agent.family, "An unknown browser"),
    os: named(agent.os.family, "an unknown operating system"),
  };
}
