# Lock Lab app image: one Next.js production server. docker-compose runs two of these behind nginx,
# plus a one-shot `migrate` container from the same image (prisma migrate deploy + seed).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
ENV NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1
COPY . .
RUN node node_modules/.bin/prisma generate \
 && node node_modules/next/dist/bin/next build

FROM node:20-bookworm-slim AS runtime
# openssl: Prisma probes libssl at startup; ca-certificates for any outbound TLS.
RUN apt-get update \
 && apt-get install -y --no-install-recommends openssl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1 PORT=3000
# Dev dependencies stay: the migrate service runs the prisma CLI and tsx (seed) from this image.
COPY --from=build --chown=node:node /app ./
USER node
EXPOSE 3000
HEALTHCHECK --interval=5s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/api/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The launcher binds the port with a backlog of 4,096 and hands it to `next start` as 16 acceptors,
# as the local stack does (scripts/stack/app-launch.ts, scripts/app-listener.cjs); it passes SIGTERM on.
CMD ["node", "--import", "tsx", "scripts/stack/app-launch.ts", "0.0.0.0", "3000", "node_modules/next/dist/bin/next", "start", "-p", "3000", "-H", "0.0.0.0"]
