# fileconv as a container: the HTTP API (`fileconv serve`) with every engine and font installed.
#
#   docker build -t fileconv .
#   docker run -d -p 8080:8080 -v fileconv-data:/data --stop-timeout 40 fileconv
#
# Configuration is the same environment variables as anywhere else (docs/api.md, docs/scaling.md);
# `worker` instead of `serve` runs a worker of a multi-node setup. Engine confinement inside the
# container needs user namespaces: see docs/self-hosting.md ("Engine confinement in a container").

# Node 20 is the official build as npm's node-linux-* package carries it (headers included, for
# native modules), and npm 10, both from the npm registry and checked against their SHA-512.
ARG NODE_VERSION=20.20.2
ARG NODE_SHA512_AMD64=3de1d033cc007661ed640d66068732819c6ce4b8945adb097b3413901774898f7cecaa46ac3d4edad544c9dbcc662b9771e45a9f1b7bae34e70c407038fba3a1
ARG NODE_SHA512_ARM64=2c25c99cd4c58b21ae601c36819488e4e04531b92300fb7cb2a0ff34aad6a04d90983812b9b4ea16783a19a349f4427c1e9c413067165a96db72ce15a3e0a71a
ARG NPM_VERSION=10.9.9
ARG NPM_SHA512=d60fba8cb42f688b81e33c2f1cbef2ad7b977166700ec0ad057f1b6d60ea6ef2524abf673e20c35931cd8305d1dbb8887134d6eefdc0e7b8435bd458bf65b862

# ---- build: the package made and installed the way `npm install -g fileconv` gets it ----
FROM debian:bookworm-slim AS build
ARG NODE_VERSION NODE_SHA512_AMD64 NODE_SHA512_ARM64 NPM_VERSION NPM_SHA512
# Behind a proxy that inspects TLS, lend the build your CA bundle and name it here, e.g.
# `-v /etc/ssl/certs/ca-certificates.crt:/run/build-ca.crt:ro --build-arg CA_BUNDLE=/run/build-ca.crt`
# (podman; with docker, a bind-mounted secret). Only the build stage downloads over HTTPS.
ARG CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
ENV DEBIAN_FRONTEND=noninteractive CURL_CA_BUNDLE=$CA_BUNDLE NODE_EXTRA_CA_CERTS=$CA_BUNDLE
# Debian 12's own Node is 18. python3, make and g++ build better-sqlite3 against Node's headers
# when its prebuilt binary cannot be downloaded.
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl ca-certificates python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
RUN set -eu; \
    case "$(dpkg --print-architecture)" in \
      amd64) arch=x64; sum="$NODE_SHA512_AMD64" ;; \
      arm64) arch=arm64; sum="$NODE_SHA512_ARM64" ;; \
      *) echo "unsupported architecture" >&2; exit 1 ;; \
    esac; \
    cd /tmp; \
    curl -fsSL -o node.tgz "https://registry.npmjs.org/node-linux-${arch}/-/node-linux-${arch}-${NODE_VERSION}.tgz"; \
    echo "$sum  node.tgz" | sha512sum -c -; \
    curl -fsSL -o npm.tgz "https://registry.npmjs.org/npm/-/npm-${NPM_VERSION}.tgz"; \
    echo "$NPM_SHA512  npm.tgz" | sha512sum -c -; \
    tar xzf node.tgz --strip-components=1 -C /usr/local package/bin/node package/include; \
    mkdir -p /usr/local/lib/node_modules/npm; \
    tar xzf npm.tgz --strip-components=1 -C /usr/local/lib/node_modules/npm; \
    ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm; \
    rm node.tgz npm.tgz; \
    node --version | grep -qx "v${NODE_VERSION}"
ENV npm_config_nodedir=/usr/local npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
# The tarball installed with its production dependencies. Install scripts are skipped: the one
# that matters, better-sqlite3's native build, was just made by `npm ci` for this same Node and is
# copied over (built again only if the tarball resolved another version); a second compile of
# SQLite would double the build's time.
RUN npm run build && npm pack --silent --pack-destination /tmp \
 && npm install --global --omit=dev --ignore-scripts --prefix /opt/fileconv /tmp/fileconv-*.tgz \
 && cd /opt/fileconv/lib/node_modules/fileconv \
 && version() { node -p "require('$1/better-sqlite3/package.json').version"; } \
 && if [ "$(version ./node_modules)" = "$(version /src/node_modules)" ]; \
    then cp -r /src/node_modules/better-sqlite3/build node_modules/better-sqlite3/; \
    else npm rebuild better-sqlite3; fi \
 && node -e "new (require('better-sqlite3'))(':memory:').close()" \
 && /opt/fileconv/bin/fileconv --version

# ---- runtime ----
FROM debian:bookworm-slim
ENV DEBIAN_FRONTEND=noninteractive
COPY --from=build /usr/local/bin/node /usr/local/bin/node
COPY --from=build /opt/fileconv /opt/fileconv
ENV PATH=/opt/fileconv/bin:$PATH
# The engines, fonts and bubblewrap by fileconv's own installer (the same list `fileconv doctor`
# checks) with the 20 most used OCR languages (IMAGE_OCR_LANGUAGES in src/run/ocr-languages.ts),
# then tini: as PID 1 it reaps the engines' orphaned children and passes SIGTERM on.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && fileconv doctor --install \
    --ocr-langs eng,deu,fra,spa,por,ita,nld,pol,rus,ukr,tur,ara,hin,ben,chi_sim,chi_tra,jpn,kor,vie,ind \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
# The server runs as an unprivileged user; the data directory is its one volume.
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/fileconv \
      --shell /usr/sbin/nologin fileconv \
 && mkdir -p /data && chown fileconv:fileconv /data
VOLUME /data
ENV FILECONV_DATA_DIR=/data FILECONV_HOST=0.0.0.0 FILECONV_PORT=8080 NODE_ENV=production
EXPOSE 8080
USER fileconv
WORKDIR /home/fileconv
# /readyz answers 200 once the data directory and the engines are usable, 503 while stopping.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.FILECONV_PORT||8080}/readyz`).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: no new work, running conversions get FILECONV_SHUTDOWN_GRACE (30 s) to finish, the
# rest go back to the queue; give `docker stop` more than that (--stop-timeout 40).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "fileconv"]
CMD ["serve"]
