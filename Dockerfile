# One image for all five services; docker-compose picks the entrypoint per service.
# Stage 1: production dependencies only (workspace manifests first, for layer caching).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY services/gateway/package.json services/gateway/
COPY services/identity/package.json services/identity/
COPY services/messaging/package.json services/messaging/
COPY services/realm-config/package.json services/realm-config/
COPY services/notifications/package.json services/notifications/
RUN npm ci --omit=dev --no-audit --no-fund

# Stage 2: type-check the sources with the dev toolchain, so a broken tree never becomes an image.
FROM deps AS check
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx tsc --noEmit -p tsconfig.json && npm run build

# Stage 3: runtime.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=check /app/package.json ./
COPY --from=check /app/packages ./packages
COPY --from=check /app/services ./services
COPY --from=check /app/dist ./dist
COPY --from=check /app/scripts ./scripts
COPY --from=check /app/tsconfig.json ./
USER node
CMD ["scripts/run-service.sh", "gateway"]
