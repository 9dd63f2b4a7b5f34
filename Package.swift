// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "CometChatPushNotifications",
    platforms: [.iOS("15.1"), .macOS(.v12)],
    products: [
        .library(name: "CometChatPushNotificationsSwift", targets: ["CometChatPushNotificationsSwift"]),
        .library(name: "CometChatPushNotificationsCalls", targets: ["CometChatPushNotificationsCalls"]),
        .library(name: "CometChatPushNotificationsChat", targets: ["CometChatPushNotificationsChat"]),
        .library(name: "CometChatPushNotificationsTesting", targets: ["CometChatPushNotificationsTesting"]),
    ],
    targets: [
        // OpenSSL's libcrypto for private push on Linux (the simulated iPhone and the tests).
        // Only Linux builds depend on it: on Apple platforms the Core uses CryptoKit, so an iOS
        // app links nothing extra.
        .systemLibrary(name: "CCryptoLinux", path: "Sources/CCryptoLinux"),
        .target(
            name: "CometChatPushNotificationsSwift",
            dependencies: [.target(name: "CCryptoLinux", condition: .when(platforms: [.linux]))],
            path: "Sources/CometChatPushNotificationsSwift",
            exclude: ["Platform/Apple/README.md", "Platform/Linux/README.md"]
        ),
        .target(
            name: "CometChatPushNotificationsCalls",
            dependencies: ["CometChatPushNotificationsSwift"],
            path: "Sources/CometChatPushNotificationsCalls",
            exclude: ["Platform/Apple/README.md"]
        ),
        .target(
            name: "CometChatPushNotificationsChat",
            dependencies: ["CometChatPushNotificationsSwift"],
            path: "Sources/CometChatPushNotificationsChat",
            exclude: ["Platform/Apple/README.md"]
        ),
        .target(
            name: "CometChatPushNotificationsTesting",
            dependencies: ["CometChatPushNotificationsSwift", "CometChatPushNotificationsChat", "CometChatPushNotificationsCalls"],
            path: "Sources/CometChatPushNotificationsTesting"
        ),
        .testTarget(
            name: "CometChatPushNotificationsSwiftTests",
            dependencies: ["CometChatPushNotificationsSwift", "CometChatPushNotificationsTesting"],
            path: "Tests/CometChatPushNotificationsSwiftTests"
        ),
        .testTarget(
            name: "CometChatPushNotificationsCallsTests",
            dependencies: ["CometChatPushNotificationsCalls", "CometChatPushNotificationsTesting"],
            path: "Tests/CometChatPushNotificationsCallsTests"
        ),
        .executableTarget(
            name: "CallsBenchmark",
            dependencies: ["CometChatPushNotificationsCalls", "CometChatPushNotificationsTesting"],
            path: "Benchmarks/CallsBenchmark"
        ),
        .testTarget(
            name: "CometChatPushNotificationsChatTests",
            // Calls too: SimulatedEndToEndTests rings a call on one of its devices.
            dependencies: ["CometChatPushNotificationsChat", "CometChatPushNotificationsCalls", "CometChatPushNotificationsTesting"],
            path: "Tests/CometChatPushNotificationsChatTests"
        ),
        // Spawned twice by ReceiptTests: two processes racing on one App Group directory.
        .executableTarget(
            name: "ReceiptRaceHelper",
            dependencies: ["CometChatPushNotificationsSwift", "CometChatPushNotificationsTesting"],
            path: "Tests/ReceiptRaceHelper"
        ),
        .executableTarget(
            name: "ExtensionBenchmark",
            dependencies: ["CometChatPushNotificationsChat", "CometChatPushNotificationsTesting"],
            path: "Benchmarks/ExtensionBenchmark"
        ),
        .executableTarget(
            name: "NotificationBenchmark",
            // Testing: the simulated device and the service's side of private push (issue 28).
            dependencies: ["CometChatPushNotificationsSwift", "CometChatPushNotificationsTesting"],
            path: "Benchmarks/NotificationBenchmark"
        ),
    ],
    swiftLanguageModes: [.v6]
)
