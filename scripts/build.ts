/** `npm run build`: the service bundles in dist/ (npm start and the bench build them themselves). */
import { PROCESSES } from "@teamchat/shared";
import { buildBundles, DIST_DIR } from "./lib/build";

buildBundles(PROCESSES).then(
  () => process.stdout.write(`[build] ${PROCESSES.join(", ")} bundled into ${DIST_DIR}\n`),
  (err: unknown) => {
    process.stderr.write(`[build] failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
