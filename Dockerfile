# Lock Lab, the whole lab in one image: the stack `npm run demo` starts (scripts/stack/: five Redis
# nodes, a Sentinel-managed pair and three Sentinels, a Redis Cluster, Postgres, PgBouncer, ZooKeeper
# ×3, etcd ×3, nginx, two Next.js instances, and the stack runner with its control API), every card of
# the pitfall lab included.
#
#   docker build -t lock-lab .
#   docker run --rm -it -p 3000:3000 --cap-add NET_ADMIN lock-lab
#   (podman: the same two commands)
#
# Options on `docker run`: -e JOIN_URL=http://<this laptop's LAN address>:3000 is the address the
# projector's QR code and join line give phones (inside a container the lab cannot see the laptop's
# address); -e ADMIN_PASSWORD=… chooses the admin password (else one is generated and printed).
# --cap-add NET_ADMIN lets the stack cut links with nftables in the container's own network
# namespace; without it the link grid says why and every other card still runs.
#
# Why Debian trixie: its nodejs is 20.19 (bookworm's is 18, too old for Next 16). Its servers are
# newer than the bookworm ones the native stack was tuned on: Redis 8.0 (7.0), ZooKeeper 3.9 (3.8),
# etcd 3.5 (3.4), Postgres 17 (15), PgBouncer 1.24 (1.18), nginx 1.26 (1.22), libfaketime
# 0.9.10+2024 (0.9.10). `npm run test:container` plays one card of each fault kind on it.
# Nothing here is x86-only: each of the 229 Debian packages the image holds has an arm64 build of the
# same version in trixie (Apple Silicon; checked with `apt-cache show <package>:arm64=<version>`),
# and every npm package with native code in it has its linux-arm64 build in package-lock.json,
# which `npm ci` picks on arm64.
ARG BASE=docker.io/library/debian:trixie-slim

# ---------------------------------------------------------------------------------------------
# build: npm ci, prisma generate, next build; then only what runs is kept.
FROM ${BASE} AS build
ENV DEBIAN_FRONTEND=noninteractive NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# NPM_CA: a CA bundle for npm mounted into this step only (a build behind a TLS-inspecting proxy:
# `podman build --volume /etc/ssl/certs/ca-certificates.crt:/run/ca.crt:ro --build-arg NPM_CA=/run/ca.crt`);
# empty by default. It is never copied into the image.
ARG NPM_CA=
# Debian's npm (9.2) only brings npm 11, the npm this lockfile is made with: npm 9 installs the musl
# and wasm builds of native packages beside the glibc ones. No install scripts run, as with npm 11
# on a machine that has not approved them: Prisma's would fetch engines this image does not use.
RUN if [ -n "$NPM_CA" ]; then export NPM_CONFIG_CAFILE="$NPM_CA"; fi \
 && npm install --global --no-audit --no-fund --no-update-notifier npm@11 \
 && /usr/local/bin/npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier \
 && rm -rf /root/.npm
COPY . .
# The build, then the dev packages (the linters, vitest, the type checker's plugins) go; the prisma
# CLI stays (a peer of @prisma/client, and `prisma migrate deploy` runs at every start). Next's SWC
# compiler and the build cache are for building only.
RUN if [ -n "$NPM_CA" ]; then export NPM_CONFIG_CAFILE="$NPM_CA"; fi \
 && node_modules/.bin/prisma generate \
 && node node_modules/next/dist/bin/next build \
 && /usr/local/bin/npm prune --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier \
 && rm -rf .next/cache node_modules/@next/swc-* node_modules/.cache /root/.npm \
 && find node_modules -mindepth 1 -maxdepth 1 -type d -empty -delete

# ---------------------------------------------------------------------------------------------
# the lab
FROM ${BASE}
ENV DEBIAN_FRONTEND=noninteractive
# ZooKeeper is its jar (libzookeeper-java) on a headless Java: Debian's `zookeeper` package, which
# the native stack installs, adds only its service scripts and a desktop Java (GTK, Mesa: 300 MB more).
# No docs, man pages or translations (what Docker's debian:*-slim leaves out too; the base's own go as
# well, for a base made without those rules) and no apt lists. A policy-rc.d keeps the packages'
# maintainer scripts from starting their services during the install, and Postgres makes no default
# cluster: the stack makes its own on its first start.
RUN printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
      'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' \
      'path-exclude /usr/share/lintian/*' > /etc/dpkg/dpkg.cfg.d/locklab-slim \
 && printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d \
 && mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/locklab.conf \
 && apt-get update \
 && apt-get install -y --no-install-recommends \
      nodejs tini \
      redis-server redis-sentinel postgresql pgbouncer libzookeeper-java default-jre-headless etcd-server nginx \
      nftables faketime \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/debconf/*-old /var/log/apt /var/log/dpkg.log \
 && find /usr/share/doc -mindepth 1 ! -type d ! -name copyright -delete \
 && find /usr/share/doc -mindepth 1 -type d -empty -delete \
 && rm -rf /usr/share/man/* /usr/share/info/* /usr/share/locale/* /usr/share/lintian/* \
 && rm /usr/sbin/policy-rc.d
WORKDIR /app
COPY --from=build /app ./
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1
# nginx listens on every interface of the container (the published port reaches it there), and the
# admin pages answer through that port: inside a container the instructor's browser is not on
# loopback either. The password guards them; publish on 127.0.0.1 (-p 127.0.0.1:3000:3000) to keep
# the lab to this laptop.
ENV PUBLIC_HOST=0.0.0.0 ADMIN_FROM_LAN=1
# Docker Desktop (macOS, Windows) passes no phone's address into a container: the whole class arrives
# from its gateway. So one address may hold a room of people here (each phone its own cookie, each
# its own person); on a Linux host, where the container sees each phone's address, set the
# projector's People per address back to 1 (or run with -e ROOM_PEOPLE_PER_ADDRESS=1).
ENV ROOM_PEOPLE_PER_ADDRESS=60
EXPOSE 3000
# tini reaps the processes the lab's runners leave to it and passes Ctrl-C / `docker stop` on to
# the stack runner, which stops every server in order and exits.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "scripts/container.ts"]
