# The kagent-evals binary on a minimal non-root image.
#
#   docker build -t kagent-evals .
#
# Build stage: the locked dependency graph, release profile.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY core ./core
# Benches and tests are not part of the image; the manifest names them.
COPY benches ./benches
COPY tests ./tests
RUN cargo build --release --locked --bin kagent-evals \
 && cp target/release/kagent-evals /kagent-evals

# Runtime: glibc and CA certificates only, as user 65532.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /kagent-evals /kagent-evals
USER 65532:65532
ENTRYPOINT ["/kagent-evals"]
CMD ["controller"]
