# syntax=docker/dockerfile:1
# Production dependencies, with the one native module (better-sqlite3) compiled here. The
# package's own install step (`prepare`: the build) needs the sources and runs in the next stage.
FROM node:26-bookworm-slim AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3

# The build: src/ (TypeScript) to dist/ (JavaScript) with esbuild, a development dependency.
FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.js ./scripts/
COPY src ./src
RUN node scripts/build.js --force

# Runtime stage: no compilers and no sources, a non-root user, the built JavaScript.
FROM node:26-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The exact start command the tests run outside Docker (test/helpers/child-server.ts).
CMD ["node", "bin/signet.js", "serve"]
