# The service's image: built once here, then run as built (no build at start).
#   docker build -t cms-service .
#   docker run -e MONGODB_URI=mongodb://… -p 8080:8080 cms-service
# It needs MONGODB_URI: the embedded database is for a checkout, not for an image.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# mongodb-memory-server would download a mongod at install; the image is given MONGODB_URI.
ENV MONGOMS_DISABLE_POSTINSTALL=1
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
COPY admin ./admin
# tsconfig.build.json compiles the fault suite too (test/faults, and the test/support files it imports).
COPY test ./test
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# tini is PID 1: it passes SIGTERM on to node and reaps what exits, under `docker run` and
# orchestrators that have no --init alike.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini=0.19.* \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
  MONGOMS_DISABLE_POSTINSTALL=1 \
  HOST=0.0.0.0 \
  PORT=8080
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# What the service reads at run time beside dist/ (found from package.json's folder).
COPY blocks ./blocks
COPY schemas ./schemas
COPY themes ./themes
COPY plugin-directory ./plugin-directory
# The code stays root's and read-only; the service runs as node, which may write only its data folder.
RUN mkdir data && chown node:node data
USER node
EXPOSE 8080
# /healthz is liveness: 200 while the process answers, whatever the database does (readiness is /readyz).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/main.js"]
