import { runService } from "@teamchat/shared";
import { buildRealmConfig } from "./app";

runService("realm-config", buildRealmConfig);
