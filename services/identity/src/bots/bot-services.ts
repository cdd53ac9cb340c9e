import { badRequest, identity } from "@teamchat/shared";
import { generateApiKey } from "../api-keys/api-key.repository";
import type { BotProfile } from "../users/user.schema";

const { BotType, BotInterface } = identity;

/**
 * Zulip's EMBEDDED_BOTS (zerver/lib/integrations.py): the embedded bots one may
 * create, with their configuration templates (load_bot_config_template: the
 * zulip_bots package's <bot>.conf; only giphy has one).
 */
export const EMBEDDED_BOT_CONFIG_TEMPLATES: Record<string, Record<string, string>> = {
  converter: {},
  encrypt: {},
  helloworld: {},
  virtual_fs: {},
  giphy: { key: "12345678" },
  followup: {},
};

export const EMBEDDED_BOT_NAMES = Object.keys(EMBEDDED_BOT_CONFIG_TEMPLATES);

/** Zulip's check_valid_interface_type. */
export function checkInterfaceType(interfaceType: number): void {
  if (!(Object.values(BotInterface) as number[]).includes(interfaceType)) throw badRequest("Invalid interface type");
}

/** Zulip's check_url: an http(s) URL. */
export function checkUrl(name: string, value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || !["http:", "https:"].includes(url.protocol)) throw badRequest(`${name} is not a URL`);
  return value;
}

interface ServiceRequest {
  botType: number;
  serviceName: string;
  payloadUrl: string;
  interfaceType: number;
  configData: Record<string, string>;
}

/**
 * What add_bot_backend keeps beside the user: an outgoing webhook's or embedded
 * bot's Service row (with a fresh token) and an embedded bot's configuration.
 * Incoming webhook integrations are not offered by this server, so naming one
 * is refused as Zulip refuses an unknown one.
 */
export function newBotProfile(
  { botType, serviceName, payloadUrl, interfaceType, configData }: ServiceRequest,
  defaultAllPublicStreams: boolean,
): BotProfile {
  if (botType === BotType.EMBEDDED && !EMBEDDED_BOT_NAMES.includes(serviceName)) {
    throw badRequest("Invalid embedded bot name.");
  }
  if (botType === BotType.INCOMING_WEBHOOK && serviceName) {
    throw badRequest(`Invalid integration '${serviceName}'.`);
  }
  const hasService = botType === BotType.OUTGOING_WEBHOOK || botType === BotType.EMBEDDED;
  return {
    defaultAllPublicStreams,
    service: hasService
      ? { name: serviceName, baseUrl: payloadUrl, interface: interfaceType, token: generateApiKey() }
      : null,
    config: botType === BotType.EMBEDDED ? configData : {},
  };
}
