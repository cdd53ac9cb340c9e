import { runService } from "@teamchat/shared";
import { buildIdentity } from "./app";

runService("identity", buildIdentity);
