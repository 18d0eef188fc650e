# shaper-gen serve with the sample's webhooks (a user's project gets its own
# Dockerfile from `shaper-gen init`): `npm run build` (it builds the CEL
# engine the image carries), then `docker build -t shaper-webhooks .`, or
# `buildah bud`. The cluster suite builds it with buildah and runs it on
# kindEnv's node.
# The generator (generator/, @shaper-gen/generator) is a dev dependency:
# the image is built without it and its runtime stage holds shaper-gen's
# production dependencies alone.
# Generated with the scaffold's Dockerfile from templates/dockerfile/Dockerfile.hbs
# (npm run dockerfiles); edit the template.
ARG NODE_IMAGE=node:24-bookworm-slim

# Stage 1: compile TypeScript (including sample/webhooks.generated.ts).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json ./
COPY bin ./bin
COPY runtime ./runtime
COPY sample ./sample
COPY scripts/bundle-runtime.ts ./scripts/
# The bundle (dist/bin, dist/package, dist/chunks) is what runs: tsc's output it was made from is not loaded.
RUN npm run build:runtime && rm -r dist/runtime

# Production dependencies only.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Type declarations, source maps and docs are not loaded at run time.
RUN npm install --omit=dev --no-audit --no-fund \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' -o -name '*.ts' \) -delete

# The CEL engine (the API server's admission code as WebAssembly), gzipped: `serve` loads it only to enforce a
# policy where the API server does not serve the policy's kind (the chart's policies.enforcement).
FROM ${NODE_IMAGE} AS cel-engine
WORKDIR /cel-engine
# Built by `npm run build` (scripts/build-cel-engine.sh) before the image.
COPY generator/dist/cel-engine/ ./
RUN gzip cel-engine.wasm

# The run-time base: Node's binary and the C libraries it links, and nothing else (no shell, npm, package
# manager or docs): a distroless-style root file system taken from the Node image the build stages use.
FROM ${NODE_IMAGE} AS node-runtime
WORKDIR /rootfs
RUN mkdir -p usr/local/bin tmp \
 && chmod 1777 tmp \
 && cp "$(command -v node)" usr/local/bin/node \
 && for lib in $(ldd usr/local/bin/node | grep -o '/[^ ]*'); do cp --parents -L "$lib" .; done

# Node alone under the application; non-root, nothing written at run time: the chart runs it with a read-only root filesystem.
FROM scratch
COPY --from=node-runtime /rootfs /
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=cel-engine /cel-engine ./cel-engine
COPY package.json ./
USER 65532:65532
EXPOSE 9443 8081 8080
ENTRYPOINT ["/usr/local/bin/node", "/app/dist/bin/shaper-gen.js"]
CMD ["serve", "--config", "/etc/shaper-gen/config.yaml"]
