# One container: the gateway, both backends and the scheduler, on an embedded SQLite file in /data.
FROM oven/bun:1.4.5 AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; bun reads package-lock.json. better-sqlite3 ships its N-API prebuilds.
RUN bun install --production --ignore-scripts

FROM oven/bun:1.4.5-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data LOG_LEVEL=info
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY drizzle ./drizzle
COPY src ./src
RUN mkdir -p /data && chown -R bun:bun /data
USER bun
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["bun", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/v1/health`).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["bun", "src/index.ts"]
