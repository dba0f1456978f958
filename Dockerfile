# One image for every service of the platform; docker-compose.yml picks the command per service.
# Build context: the repository root (npm workspaces share one lockfile).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
RUN npm install -g npm@11 && npm --version
COPY package.json package-lock.json .npmrc ./
COPY common/package.json common/
COPY drizzle/package.json drizzle/
COPY backend/package.json backend/
COPY wrapper/package.json wrapper/
COPY summarizer/package.json summarizer/
COPY web/package.json web/
COPY tools/openapi-types/package.json tools/openapi-types/
RUN npm ci

FROM deps AS app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 HOST=0.0.0.0
COPY . .
RUN cd web && node ../node_modules/next/dist/bin/next build
USER node
EXPOSE 3000 4000 4100
CMD ["node", "--import", "tsx", "backend/src/server.ts"]
