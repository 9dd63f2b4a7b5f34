// swift-tools-version:6.0
// The push service: a self-hostable backend for the iOS push SDK. Its modules, from the bottom,
// are described in Server/README.md ("Layout and tests") and docs/ARCHITECTURE.md.
import PackageDescription

let package = Package(
    name: "PushServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "push-server", targets: ["push-server"]),
        .library(name: "PushCore", targets: ["PushCore"]),
        .library(name: "PushStore", targets: ["PushStore"]),
        .library(name: "PushService", targets: ["PushService"]),
    ],
    targets: [
        // MARK: C libraries (system libraries through pkg-config; see each shim header)
        .systemLibrary(
            name: "CMHD", path: "Sources/CMHD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(
            name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        // OpenSSL's libcrypto, for PushCrypto only (the service's one crypto module).
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),

        // MARK: The base, the store and the service
        /// What every module uses and none owns: threads and locks, `BackgroundWorker` and its
        /// `ServiceClock`, `RetryPolicy` (the one back-off), the logger, a JSON codec without
        /// Foundation, IP addresses and CIDR blocks, files, the process's identity.
        .target(name: "ServerSupport", dependencies: ["CSystem"]),
        .testTarget(name: "ServerSupportTests", dependencies: ["ServerSupport", "PushTestSupport"]),
        /// The seam between the service and the delivery engine: jobs, headers and outcomes, the
        /// sender protocol, provider credentials and health, and what delivery needs of the store
        /// (`OutboxStore`, `ProviderTokenStore`).
        .target(name: "PushCore", dependencies: ["ServerSupport"]),
        /// The store protocol and its SQLite (WAL) and PostgreSQL (libpq) implementations.
        .target(name: "PushStore", dependencies: ["PushCore", "CSQLite", "CLibPQ", "ServerSupport"]),
        /// A small HTTP/1.1 server on libmicrohttpd, with per-address connection limits and the
        /// trusted proxy (its `HTTPRequest` and `HTTPResponse` are what the service receives and
        /// answers; CurlHTTP's `OutboundRequest` is what it sends).
        .target(name: "HTTPServer", dependencies: ["CMHD", "ServerSupport"]),
        /// The client, admin and send APIs, payloads and preferences, webhooks, provider secrets
        /// and rate limits, configuration, the app that starts the workers, the dashboard.
        .target(
            name: "PushService",
            dependencies: ["PushCore", "PushStore", "HTTPServer", "PushCrypto", "CurlHTTP", "APNs", "FCM", "Delivery", "ServerSupport"]),
        /// The C library calls Swift cannot make directly (variadic or GNU-only).
        .systemLibrary(name: "CSystem", path: "Sources/CSystem"),
        /// The executable: `serve` and the operator commands (`check-provider`, `migrate-store`, …).
        .executableTarget(name: "push-server", dependencies: ["PushService", "PushStore", "Delivery", "CSystem", "ServerSupport"]),
        // The service's tests, by concern. Each runs the service through `Harness` or
        // `ServerProcess` (PushTestSupport); the targets that start the binary or the native mock
        // depend on `push-server` and `apns-mock-native` so that `--build-tests` builds them.
        /// The stores directly: SQLite and PostgreSQL side by side, migrations, retention, `migrate-store`.
        .testTarget(
            name: "PushStoreTests",
            dependencies: [
                "PushStore", "PushCore", "PushService", "PushTestSupport", "PushMocks", "ServerSupport", "apns-mock-native", "push-server",
            ]),
        /// The HTTP API, called in process: admin and client routes, the contract fixtures,
        /// OpenAPI, the dashboard, preferences, sends, traces, limits at the door.
        .testTarget(
            name: "APITests",
            dependencies: [
                "PushService", "PushStore", "PushCore", "PushCrypto", "HTTPServer", "PushMocks", "PushTestSupport", "ServerSupport",
                "Delivery",
            ]),
        /// What the running service sends out: pushes to the mock APNs and FCM, webhooks, wake-ups,
        /// isolation between apps and users, the checks of outbound requests, request bodies through curl.
        .testTarget(
            name: "OutboundTests",
            dependencies: [
                "PushService", "PushStore", "PushCore", "PushCrypto", "HTTPServer", "CurlHTTP", "PushMocks", "PushTestSupport",
                "ServerSupport",
            ]),
        /// The service as an operator runs it and as the network reaches it: the `push-server`
        /// binary (commands, flags, `kill -9`, three instances on one database) and live sockets
        /// (connection limits, malformed requests, the in-process call against the socket).
        .testTarget(
            name: "LiveServiceTests",
            dependencies: [
                "PushService", "PushStore", "PushCore", "HTTPServer", "PushMocks", "PushTestSupport", "ServerSupport", "APNs",
                "apns-mock-native", "push-server",
            ]),

        // MARK: Cryptography, the HTTP/2 client, the providers and delivery
        // They see the store only through PushCore's protocols: Delivery does not depend on PushStore.
        /// libcurl (multi interface, HTTP/2) with typed wrappers for its variadic calls.
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
        /// libnghttp2 (HTTP/2 framing) and OpenSSL's libssl (TLS), for NativeHTTP2 only.
        .systemLibrary(
            name: "CNGHTTP2", path: "Sources/CNGHTTP2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]),
        .systemLibrary(
            name: "CSSL", path: "Sources/CSSL", pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        /// All of the service's cryptography: JWT signing (ES256, RS256) and the APNs
        /// provider-token cache, hashes and MACs, random bytes, the sealing of stored secrets,
        /// webhook signatures, and Web Push message encryption (RFC 8291) for private push.
        .target(name: "PushCrypto", dependencies: ["CCrypto", "ServerSupport"]),
        .testTarget(name: "PushCryptoTests", dependencies: ["PushCrypto", "PushMocks"]),
        /// An HTTP/2 client on libcurl's multi interface (connection pool, multiplexing) for every
        /// request the service sends (`OutboundRequest`), with the destination checks of the URLs
        /// an admin chooses.
        .target(name: "CurlHTTP", dependencies: ["CCurl", "ServerSupport"]),
        /// An HTTP/2 client of our own on libnghttp2 and libssl (one event-loop thread per
        /// connection, frames coalesced into one TLS write per turn): the APNs transport
        /// `--apns-transport native`. It sends CurlHTTP's `OutboundRequest` through the same seam
        /// (`HTTP2Transport`).
        .target(name: "NativeHTTP2", dependencies: ["CNGHTTP2", "CSSL", "CSystem", "CurlHTTP", "ServerSupport"]),
        /// The APNs provider API client (token auth, push types, payload limits, `APNsReason`),
        /// on libcurl or on NativeHTTP2 (`APNsTransport`).
        .target(name: "APNs", dependencies: ["PushCore", "CurlHTTP", "NativeHTTP2", "PushCrypto", "ServerSupport"]),
        /// The FCM HTTP v1 client (service-account OAuth exchange, messages:send).
        .target(name: "FCM", dependencies: ["CurlHTTP", "PushCrypto", "ServerSupport"]),
        /// The delivery engine and its senders, `AnswerPolicy` (what each provider answer means),
        /// the provider clients and their circuit breakers, shared provider tokens, metrics and
        /// health, `check-provider`.
        .target(
            name: "Delivery", dependencies: ["PushCore", "APNs", "FCM", "CurlHTTP", "PushCrypto", "ServerSupport"]),
        .testTarget(
            name: "DeliveryTests",
            dependencies: [
                "Delivery", "APNs", "FCM", "PushCore", "PushStore", "PushMocks", "PushTestSupport", "CurlHTTP", "PushCrypto",
                "ServerSupport",
            ]),
        /// A fast mock APNs (HTTP/2 over TLS on libnghttp2 + OpenSSL) for the benchmarks and the
        /// load tests.
        .executableTarget(
            name: "apns-mock-native", path: "Sources/apns-mock-native",
            linkerSettings: [.linkedLibrary("nghttp2"), .linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        /// Test support: starts the protocol-speaking mocks of `Mocks/` (APNs, FCM, the fault
        /// proxy) and `apns-mock-native`, with a test CA and test credentials.
        .target(name: "PushMocks", dependencies: ["CSystem"]),
        /// What the test targets share, never linked into the service: test doubles (a recording
        /// sender, a recording log handler, a manual clock), the seeded generator, `PushJob.test`,
        /// the waits, the test databases, `Harness` (a service in process, its API called with or
        /// without a socket) and `ServerProcess` (the built binary).
        .target(
            name: "PushTestSupport",
            dependencies: [
                "PushCore", "PushStore", "PushService", "PushCrypto", "HTTPServer", "PushMocks", "ServerSupport", "CLibPQ", "CSQLite",
            ]),
        .testTarget(
            name: "APNsTests",
            dependencies: ["APNs", "PushCore", "CurlHTTP", "NativeHTTP2", "PushCrypto", "PushMocks", "PushTestSupport", "ServerSupport"]),

        // MARK: Benchmarks
        /// The outbox's accept, claim and finish at batch speed on SQLite or PostgreSQL
        /// (Benchmarks/README.md, "The store at batch speed").
        .executableTarget(name: "store-bench", dependencies: ["PushStore", "PushCore", "ServerSupport", "CLibPQ"]),
    ],
    swiftLanguageModes: [.v6]
)
