# syntax=docker/dockerfile:1
# One image for every Cowrie service; docker-compose.yml picks the command.
# Node 24 is the maintained LTS line the image runs (the project also supports
# Node 20.19+, which CI runs).
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Build: everything installed, the services and the CLI compiled, then the
#    production tree laid out in /app (scripts/build/production-tree.mjs):
#    dist/ of each service and the CLI (the gateway's holds the built dashboard,
#    served at /dashboard), migrations, production npm packages.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm install --no-audit --no-fund \
  && npm run build \
  && node scripts/build/production-tree.mjs /app

# 2. Run: compiled output and production dependencies only, owned by root and
#    run by the unprivileged `node` user (the code cannot rewrite itself).
FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
# `cowrie` on the PATH: docker compose exec gateway cowrie --help
RUN ln -s /app/scripts/container/cowrie.mjs /usr/local/bin/cowrie
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "scripts/container/healthcheck.mjs"]
# The gateway; the workers and the one-shot migration are other commands of this image:
#   node services/payout-worker/dist/main.js
#   node services/verification-dispatcher/dist/main.js
#   node services/webhook-sender/dist/main.js
#   node --experimental-wasm-modules --no-warnings packages/db/migrate/cli.mjs apply
#   cowrie <command>                                  (the operator CLI, on the PATH)
CMD ["node", "services/gateway/dist/main.js"]
