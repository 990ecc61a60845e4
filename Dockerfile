# The crdstore image for users: a Rust build stage, then a slim Debian
# image that runs the release binary as a non-root user with its data in a
# volume. Build it with `docker build -t crdstore .` or `docker compose build`.
#
# (scripts/compose-test builds its image differently, FROM scratch out of the
# release binary and the libraries it links, because the test machines
# cannot pull the base images named here.)

ARG RUST_VERSION=1.95
ARG DEBIAN_RELEASE=bookworm

FROM rust:${RUST_VERSION}-slim-${DEBIAN_RELEASE} AS build
WORKDIR /src
# Everything build.rs and the crate read; .dockerignore keeps target/ and the
# clients out of the context.
COPY Cargo.toml Cargo.lock build.rs ./
COPY proto proto
COPY src src
COPY benches benches
COPY third_party third_party
# The registry and target caches survive between builds (BuildKit, the
# default builder since Docker 23, reads the --mount flags); the
# binary is copied out of the cache in the same step.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin crdstore \
    && install -D -m 0755 target/release/crdstore /out/crdstore

FROM debian:${DEBIAN_RELEASE}-slim
# curl answers the healthcheck; nothing else is installed.
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 crdstore \
    && useradd --system --uid 10001 --gid crdstore --home-dir /var/lib/crdstore --shell /usr/sbin/nologin crdstore \
    && install -d -o crdstore -g crdstore -m 0750 /var/lib/crdstore
COPY --from=build /out/crdstore /usr/local/bin/crdstore
# Listen on every interface of the container; the ports are crdstore's
# defaults: gRPC 50051, HTTP (the Kubernetes API, /metrics, health) 8080.
ENV CRDSTORE_DATA_DIR=/var/lib/crdstore \
    CRDSTORE_GRPC_ADDR=0.0.0.0:50051 \
    CRDSTORE_HTTP_ADDR=0.0.0.0:8080
VOLUME ["/var/lib/crdstore"]
EXPOSE 50051 8080
USER 10001:10001
WORKDIR /var/lib/crdstore
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=5 \
    CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/readyz"]
# crdstore drains and flushes on SIGTERM, which `docker stop` sends.
STOPSIGNAL SIGTERM
ENTRYPOINT ["crdstore"]
CMD ["serve"]
