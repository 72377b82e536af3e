# One container, one file: the compiled executable (`npm run build`, src/compile.ts) serves the API, the queue and
# the scheduler on an embedded SQLite file in /data. Migrations, SAT catalogs, fonts and the /docs assets are inside it.
FROM oven/bun:1.4.5 AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies are all the build needs; bun reads package-lock.json. better-sqlite3 ships its N-API prebuilds.
RUN bun install --production --ignore-scripts
COPY tsconfig.json ./
COPY drizzle ./drizzle
COPY src ./src
RUN bun src/compile.ts --outfile /out/cfdi-api && mkdir -p /out/data

# glibc and libstdc++ (the SQLite addon links it), nothing else: no shell, no package manager; runs as uid 65532.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/cfdi-api /usr/local/bin/cfdi-api
COPY --from=build --chown=nonroot:nonroot /out/data /data
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data LOG_LEVEL=info
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/usr/local/bin/cfdi-api", "healthcheck"]
# `docker run … cfdi-api` serves; `docker run … cfdi-api jobs failed` runs an operator command on the same volume.
ENTRYPOINT ["/usr/local/bin/cfdi-api"]
