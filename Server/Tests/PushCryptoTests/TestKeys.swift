import Foundation
import PushMocks

/// Keys made with the `openssl` command at test time (never committed), plus helpers to run
/// the independent Python verifier in `Server/Mocks/verify_jwt.py`.
struct TestKeys {
    let directory: URL
    let ecPrivatePEM: String
    let ecPublicPath: String
    let rsaPrivatePEM: String
    let rsaPublicPath: String

    /// One set of keys per test process (RSA generation is slow).
    static let shared: Result<TestKeys, any Error> = Result { try make() }

    static func make() throws -> TestKeys {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-crypto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let p = dir.path
        try run(
            "openssl",
            [
                "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-out", "\(p)/ec.pem",
            ])
        try run("openssl", ["pkey", "-in", "\(p)/ec.pem", "-pubout", "-out", "\(p)/ec.pub.pem"])
        try run(
            "openssl",
            [
                "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                "-out", "\(p)/rsa.pem",
            ])
        try run("openssl", ["pkey", "-in", "\(p)/rsa.pem", "-pubout", "-out", "\(p)/rsa.pub.pem"])
        return TestKeys(
            directory: dir,
            ecPrivatePEM: try String(contentsOfFile: "\(p)/ec.pem", encoding: .utf8),
            ecPublicPath: "\(p)/ec.pub.pem",
            rsaPrivatePEM: try String(contentsOfFile: "\(p)/rsa.pem", encoding: .utf8),
            rsaPublicPath: "\(p)/rsa.pub.pem")
    }

    /// Runs the Python verifier; returns its JSON output (header and claims) or nil if invalid.
    func verify(token: String, publicKeyPath: String) throws -> [String: [String: Any]]? {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Mocks/verify_jwt.py").standardized.path
        let (status, output) = try Self.run("python3", [script, publicKeyPath, token])
        guard status == 0, let data = output.data(using: .utf8) else { return nil }
        return try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]]
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readUntilEnd()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
