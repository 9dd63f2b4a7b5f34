import Foundation

/// A throwaway CA, server certificate and signing keys made by `Mocks/make_test_ca.sh`
/// in a temporary directory (once per process). Nothing here is ever committed.
public struct TestCredentials: Sendable {
    /// The directory holding the files.
    public let directory: String
    /// The test CA certificate clients trust.
    public var caFile: String { directory + "/ca.pem" }
    /// The server certificate and key the mocks present.
    public var serverCertificate: String { directory + "/server.pem" }
    /// The server key.
    public var serverKey: String { directory + "/server.key" }
    /// The APNs `.p8` signing key (PEM text).
    public let apnsPrivateKeyPEM: String
    /// Path of the APNs public key the mock verifies JWTs with.
    public var apnsPublicKey: String { directory + "/apns.pub.pem" }
    /// The FCM service-account private key (PEM text).
    public let fcmPrivateKeyPEM: String
    /// Path of the FCM public key the mock verifies assertions with.
    public var fcmPublicKey: String { directory + "/fcm.pub.pem" }

    /// The shared credentials for this test process.
    public static let shared: Result<TestCredentials, any Error> = Result { try make() }

    static func make() throws -> TestCredentials {
        let dir = NSTemporaryDirectory() + "push-delivery-ca-\(getpid())"
        let (status, _) = runTool("/bin/sh", [MockPaths.mocks + "/make_test_ca.sh", dir])
        guard status == 0,
            let apns = try? String(contentsOfFile: dir + "/apns.p8", encoding: .utf8),
            let fcm = try? String(contentsOfFile: dir + "/fcm.pem", encoding: .utf8)
        else {
            throw MockError("make_test_ca.sh failed")
        }
        return TestCredentials(directory: dir, apnsPrivateKeyPEM: apns, fcmPrivateKeyPEM: fcm)
    }
}

/// A failure to set up a mock.
public struct MockError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Where the mock scripts live in the source tree.
enum MockPaths {
    /// `Server/Mocks`.
    static let mocks: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Mocks").standardized.path
}

/// Runs a tool to completion and returns its status and standard output.
func runTool(_ path: String, _ arguments: [String]) -> (Int32, String) {
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return (-1, "") }
    let data = pipe.fileHandleForReading.readUntilEnd()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
